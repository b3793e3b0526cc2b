package config

import "time"

// Upper bounds enforced by Validate, so that an accepted configuration cannot
// exhaust the process or flood the endpoint.
const (
	// LimitTokens bounds a token count: a fixed prompt_tokens or
	// output_tokens, and a distribution's mean, min and max; in tokens
	// (1048576).
	LimitTokens = 1 << 20
	// LimitRate bounds Schedule.Rate, in requests per second.
	LimitRate = 10000
	// LimitConcurrency bounds Schedule.MaxConcurrency, in requests.
	LimitConcurrency = 10000
	// LimitQueue bounds Schedule.MaxQueue, in requests.
	LimitQueue = 100000
	// LimitHeaders bounds the number of Target.Headers.
	LimitHeaders = 100
	// LimitTimeout bounds Target.Timeout: a request, and what it holds (a
	// concurrency slot, a connection), never lasts longer than an hour.
	LimitTimeout = time.Hour
)
