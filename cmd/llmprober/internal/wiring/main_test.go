package wiring

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/llmprober/llmprober/cmd/llmprober/internal/testsupport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer = testsupport.SyncBuffer
