package sse_test

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/llmprober/llmprober/probe/sse"
)

func ExampleReader() {
	stream := ": keep-alive\n\ndata: {\"n\":1}\r\n\r\nevent: error\ndata: boom\n\ndata: [DONE]"
	r := sse.NewReader(strings.NewReader(stream), 0)
	for {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
			break
		}
		fmt.Printf("%q %q\n", ev.Type, ev.Data)
	}
	// Output:
	// "" "{\"n\":1}"
	// "error" "boom"
	// "" "[DONE]"
}
