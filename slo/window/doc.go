// Package window keeps each target's rolling measurement windows and
// summarizes them: per status (successful, errored, incomplete, all) the
// distribution of every per-request quantity, request and token rates, and
// the time-weighted concurrency, as the design's "Windows" section and the
// metrics reference define them. It imports the probe and slo/stats
// packages, never Prometheus or OpenTelemetry.
//
// # Windows
//
// A Store is one target's windows. It implements probe.Observer: Finished
// adds the request's record, Started and Finished track the requests in
// flight, and State marks when measuring begins. A window of length W read
// at now is the measurement window [now − W, now], clipped to the start of
// measuring: the prober start (the moment the target's start-up gate passes
// and probing begins) plus the configured warmup. Its effective length is
// min(W, now − measure start).
//
// Request-level figures (counts by status, request latency, token counts,
// streaming iterations) include every finished request whose end lies in the
// window; requests still running count only toward concurrency. Event-level
// figures include only the events inside it: a time to first token (first
// output token) when [request start, first token] overlaps the window, that
// is when the first token came at or after the window start; inter-token
// latency and time per output token when [first token, end] overlaps it,
// which holds for every finished request of the window; dispatch delay and
// scheduled latency when the request started inside the window. Token rates
// count tokens by event time: a request's output tokens are spread evenly
// over [first token, last token] (all at its end when it was not streamed or
// had no token), its prompt tokens count at its first token (at its end
// without one). Rates are counts divided by the effective length; the
// concurrency is the time-weighted mean number of requests in flight. The
// same rules exclude the warmup: a request that ended before measuring began
// is in no window, and of a request that straddles the measure start only
// the events after it count.
//
// Store.SnapshotSpan reads a window that ended before the instant read (a
// finite run's window before its cooldown): a request that ended after the
// window counts when its lifetime overlaps it, and its events by the same
// overlap rules (TTFT when request start..first token overlaps the window,
// ITL and TPOT when first token..end does, dispatch delay when it started
// in it, tokens and time in flight inside the window only).
//
// Request latency is end − request start and scheduled latency end −
// targeted start for every finished request (successful or errored), so
// the errored breakdown describes how long failures took; incomplete
// requests did not finish and have neither.
//
// Percentiles, intervals and the token weighting of inter-token latency and
// time per output token are those of package stats; intervals exist only for
// the once-per-request quantities.
//
// # SLO attainment
//
// With objective sets (Settings.Objectives), each finished request's
// verdict under every set is kept in its entry, and counted in its end's
// bucket. A window reports per set the requests evaluated (conforming or
// non-conforming) and conforming among those that ended in it, the ratio
// with its Wilson interval, and the goodput: conforming requests, and
// their output tokens, per second of the effective length. The counts are
// exact also past the sample cap, read from the buckets' counters.
//
// # Memory bound
//
// Records are kept in time buckets by their end, measured from the measure
// start: the bucket width is the longest window ÷ 720 (5 s for 1h), and
// 722 buckets are kept, enough for the longest window however it falls on
// the grid. Each bucket keeps its first K records, K = the sample cap ÷ 720
// (138 for the default cap of 100 000 records per target), so a target
// keeps at most K·722 records (about the cap). A record kept costs 96 bytes
// in its bucket and 16 bytes in the index (see Snapshots) for each of its
// quantities that is defined, 10 for a streamed HTTP request, 12 for a
// realtime one, 5 to 7 for a whole response, plus at most a sixteenth of
// the index as spare room: about 270 bytes for a streamed request (the
// heap a store keeps per record measures about 290 with its buckets'
// share, and a test holds it to at most 300), about 29 MB at the default
// cap. The index leaves out the time to first output token while no
// record held has one other than its time to first token, and the
// streaming iterations while none has them other than its output tokens
// (the usual case without reasoning tokens; see Aliases below): then a
// streamed request costs 32 bytes less, about 255 measured (at most 265
// in the test), about 25 MB at the cap. A window at most an eighth of
// the longest keeps its records' values once more, in its sub-index (see
// Snapshots): 16 bytes and the same spare room per quantity for each
// record in it, so with the default windows 1m, 5m and 1h, whose 1m and
// 5m hold a tenth of the records, about 15 bytes more per record held
// (268 measured alike, 305 with one record in 100 unlike; at most 281
// and 320 in the test); windows 1m and 5m keep none. Besides, a target keeps 69 kB of buckets (96 bytes each, allocated
// 32 at a time as time first reaches them, so a store younger than its
// longest window holds only those it used), 24 bytes per bucket and
// objective set for the verdict counts (69 kB with 4 sets) and, once
// buckets overflow, up to 1.5 MB of aggregates.
//
// While none of the buckets a window reads has overflowed, every figure is
// exact and computed from the records with the exact bounds [now − W, now].
//
// A bucket that receives more than K records keeps a uniform reservoir
// sample of K of them (Vitter's algorithm R with a seeded generator), and
// every record that leaves the sample has its contributions folded into
// exact aggregates (count, sum, mean and squared deviations, minimum and
// maximum of each quantity by status; output and prompt tokens and busy
// time), filed under the bucket of the event that decides its inclusion
// (first token for time to first token, request start for dispatch delay,
// end for the request-level quantities, and time spread over buckets for
// tokens and busy time). A window that reads an overflowed bucket is
// computed on the bucket grid instead: its start is aligned down to the
// bucket boundary, and the snapshot reports the bounds it used (so the
// effective length can exceed W by less than one bucket width). Then:
//
//   - counts, sums, means, variances, minima, maxima, rates, concurrency and
//     the interval of the mean are exact for the reported bounds (sampled
//     records plus aggregates);
//   - a summary whose records are all present (no record of that quantity
//     and status left a sample) is computed exactly, with its intervals;
//   - otherwise the median, mode and percentiles are estimated from the
//     sampled records, each weighted by its bucket's count of requests of
//     its status ÷ the number of them sampled, and marked Approximate; the
//     percentile intervals are absent.
//
// Error bound of the estimated percentiles: with m sampled values drawn
// uniformly, the Dvoretzky–Kiefer–Wolfowitz inequality bounds the distance
// between the sample's and the window's distribution functions by
// ε = √(ln(2/δ)/(2m)) with probability 1 − δ, so an estimated p-th
// percentile lies between the true (p − ε)-th and (p + ε)-th. Sampling
// within buckets at a steady rate is proportional stratified sampling, which
// does not widen that bound. With the default cap (K = 138) and δ = 0.01,
// once every bucket of a window has overflowed: the 1h window holds
// m ≥ 720·138 = 99 360 samples, ε ≤ 0.0052 (±0.52 percentile points); 5m
// m ≥ 60·138 = 8280, ε ≤ 0.018; 1m m ≥ 12·138 = 1656, ε ≤ 0.040. That
// regime starts above K requests per bucket, 27.6 requests per second with
// the default windows and cap.
//
// # History
//
// Beside the windows, a store keeps a history of fixed-interval aggregates
// (Store.History; 10 s points for 6 h by default) from the same events:
// per point the requests by outcome, errors by type, requests due, sent and
// dropped, output tokens, the time-weighted concurrency, the p50, p90 and
// p99 of each latency quantity and of the dispatch delay, and per objective
// set the requests evaluated and conforming. Closed points are kept
// encoded in chunks of 64 allocated as time goes (non-zero counters as
// varints, the distinct percentiles as float32 with a 4-bit index each), so
// a point costs what it holds: about 132 kB per target after 6 hours at 0.2
// requests/s (61 bytes a point), at most HistoryBytes (536 kB with one
// objective set at the defaults).
//
// # Snapshots
//
// Snapshots computes every window's figures at one instant, which they
// share as End, and caches them for a short time (one second by default),
// because Prometheus scrapes and OTLP exports both read them; Snapshot
// reads one window from that set.
//
// Beside its buckets a store keeps an index: for each metric and status,
// the values of every record it keeps in ascending order, each with its
// record's slot and place and, for a metric decided by an event other than
// the end, the number of buckets between that event and the end (16 bytes
// a value). Recording a request only
// marks its bucket changed. A snapshot:
//
//   - reads the buckets under the store's lock, in time proportional to
//     their number (recording never waits for the rest);
//   - replaces in the index the values of the buckets that changed since
//     the last snapshot: their values radix-sorted, then merged into the
//     others in one pass, with each changed bucket's sums (counts, known
//     tokens, time in flight);
//   - counts, tokens and concurrency: from those sums for a bucket the
//     window contains whole, record by record for the buckets its bounds
//     cut;
//   - collects each window's values of each metric and status from the
//     index in order, checking against its record only a value whose
//     buckets the bounds cut, and summarizes them without sorting: exact
//     summaries by stats.SummarizeSorted (the same figures as
//     stats.Summarize), estimates by one pass for the sums, the squared
//     deviations and the mode and a search for the percentiles that skips
//     blocks of 64 values.
//
// A window at most an eighth of the longest keeps a sub-index besides: the
// index's values of the records in the buckets it reads, in the index's
// order, brought up to date with it (subIndex). It collects from that
// instead, so it reads its own values rather than every value held, and
// reads the same values in the same order, with the same figures.
//
// Its cost is therefore linear in the records held, r (at most the cap),
// with a small constant: about r × the metrics' values read once for the
// longest window and for each window of more than an eighth of it, the
// values of its own records for a shorter one, plus c log c for the c
// values that changed since the previous snapshot; past the cap r stops
// growing, and so does the cost of a snapshot, whatever the request rate.
//
// # Aliases
//
// A metric of a pair in aliases (TTFOT of TTFT, streaming iterations of
// output tokens) has the same values as its partner, included by the same
// instants, whenever a record has them alike; each bucket marks whether a
// record that ended in it had them otherwise (entry.differs). While no
// bucket held is marked, a snapshot copies the partner's summaries, which
// are the same figures, and the index keeps no values of its own for the
// metric; at the first marked bucket they are indexed from every bucket
// again, and computed apart until the last marked bucket leaves the ring.
package window
