package sim

// vocabulary is the fixed word list generated tokens are drawn from.
var vocabulary = []string{
	"the", "a", "model", "answer", "is", "that", "we", "can", "see",
	"how", "time", "flows", "through", "each", "layer", "of", "small",
	"tokens", "and", "then", "it", "returns", "quickly", "to", "you",
	"with", "some", "words", "in", "order", "so", "this", "looks",
	"like", "text", "from", "server", "while", "queue", "waits", "for",
	"next", "batch", "sample", "value", "here", "there", "again", "now.",
	"yes,", "well,", "first", "second", "later", "every", "request",
	"gets", "one", "more", "line", "today.", "soon", "after", "all.",
}
