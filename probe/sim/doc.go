// Package sim is a simulated OpenAI-compatible LLM endpoint with controllable
// latency and faults.
//
// It serves POST /v1/chat/completions and POST /v1/completions (streamed as
// server-sent events or answered whole), GET /v1/models, GET /health, and
// the realtime WebSocket endpoint GET /v1/realtime (streaming
// transcription: one transcription.delta per audio chunk, a configured
// delay after it, then transcription.done; see handleRealtime). Every
// request generates exactly the asked number of tokens, one short word per
// token, paced by a configured time to first token and inter-token latency.
// Faults (HTTP errors, connection resets, stalls, malformed or truncated
// streams) are chosen per request, either by the X-Sim-Fault header or at
// random with configured probabilities. The hostile faults (HostileFaults:
// endless colon-less lines or JSON nesting, an uninvited gzip body, header
// lines that never end, endless unknown realtime messages) are chosen only
// by the header; each stops by itself after 1 GiB.
//
// The server keeps a bounded log of when it sent each chunk, read from the
// process clock (time.Now), so that a client in the same process can check its
// own measurements against the instants the server wrote.
//
// A Server is an http.Handler (New) or a listener on 127.0.0.1 (Start). It is
// the endpoint that the demo probes and the fake server of the tests.
package sim
