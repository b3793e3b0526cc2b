package exporter

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/llmprober/llmprober/slo/window"
)

// The records of ?records=true are streamed: the document around them is
// encoded first, with a placeholder string where each window's records
// go, and each placeholder is then replaced by the window's records,
// encoded one at a time straight to the client. A request holds the
// document's summaries and 16 bytes per record while it runs, never the
// whole response, and the snapshots it reads are the stores' cached ones.
//
// The records of a window, at the place of its "records" member:
//
//	{"sampled": false, "requests": [{…}, …], "running": ["…", …]}

// recordsChunk is the size of the buffer between the encoder and the
// client: each write of this many bytes is given StallTimeout.
const recordsChunk = 32 << 10

// recordStreams are the records a document refers to, in order.
type recordStreams struct {
	// nonce makes the placeholders unlike any string of the document.
	nonce string
	srcs  []recordSource
}

// recordSource is the records of one window.
type recordSource struct {
	snap       *window.Snapshot
	roundTrips bool
}

// recordsRef stands for a window's records in the encoded document.
type recordsRef struct {
	placeholder string
}

// MarshalJSON encodes the placeholder.
func (r *recordsRef) MarshalJSON() ([]byte, error) { return json.Marshal(r.placeholder) }

// newRecordStreams returns an empty list with a fresh nonce.
func newRecordStreams() *recordStreams {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return &recordStreams{nonce: hex.EncodeToString(b)}
}

// add registers the records of snap and returns their placeholder.
func (rs *recordStreams) add(snap *window.Snapshot, roundTrips bool) *recordsRef {
	rs.srcs = append(rs.srcs, recordSource{snap: snap, roundTrips: roundTrips})
	return &recordsRef{placeholder: "llmprober-records-" + rs.nonce + "-" + strconv.Itoa(len(rs.srcs)-1)}
}

// quoted returns the encoded placeholder of source i.
func (rs *recordStreams) quoted(i int) []byte {
	return []byte(`"llmprober-records-` + rs.nonce + "-" + strconv.Itoa(i) + `"`)
}

// write writes doc, the encoded document, with each placeholder replaced
// by its records.
func (rs *recordStreams) write(w io.Writer, doc []byte) error {
	for i, src := range rs.srcs {
		at := bytes.Index(doc, rs.quoted(i))
		if at < 0 {
			return fmt.Errorf("could not stream records: placeholder %d missing", i)
		}
		if _, err := w.Write(doc[:at]); err != nil {
			return err
		}
		if err := writeRecords(w, indentAt(doc, at), src); err != nil {
			return err
		}
		doc = doc[at+len(rs.quoted(i)):]
	}
	_, err := w.Write(doc)
	return err
}

// indentAt returns the white space that begins the line holding doc[at].
func indentAt(doc []byte, at int) string {
	start := bytes.LastIndexByte(doc[:at], '\n') + 1
	end := start
	for end < at && doc[end] == ' ' {
		end++
	}
	return string(doc[start:end])
}

// writeRecords writes the records of src as an object indented by ind.
func writeRecords(w io.Writer, ind string, src recordSource) error {
	if _, err := fmt.Fprintf(w, "{\n%s  \"sampled\": %t,\n%s  \"requests\": [", ind, src.snap.Approximate, ind); err != nil {
		return err
	}
	n := 0
	for r := range src.snap.All() {
		// A large answer takes a processor for a long time: yield after
		// each record, so that a probe due meanwhile is sent on time
		// rather than after the scheduler's 10 ms preemption.
		runtime.Gosched()
		b, err := json.MarshalIndent(newAPIRecord(r, src.roundTrips), ind+"    ", "  ")
		if err != nil {
			return fmt.Errorf("could not encode record: %w", err)
		}
		sep := ",\n"
		if n == 0 {
			sep = "\n"
		}
		if _, err := io.WriteString(w, sep+ind+"    "); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		n++
	}
	if n > 0 {
		if _, err := io.WriteString(w, "\n"+ind+"  "); err != nil {
			return err
		}
	}
	running, err := json.MarshalIndent(runningJSON(src.snap), ind+"  ", "  ")
	if err != nil {
		return fmt.Errorf("could not encode running requests: %w", err)
	}
	_, err = fmt.Fprintf(w, "],\n%s  \"running\": %s\n%s}", ind, running, ind)
	return err
}

// runningJSON lists the start times of the requests in flight.
func runningJSON(s *window.Snapshot) []string {
	out := []string{}
	for _, t := range s.Running() {
		out = append(out, *timeJSON(t))
	}
	return out
}

// stallWriter writes a streamed response, giving each write stall to be
// accepted by the client, and none past deadline.
type stallWriter struct {
	rw       http.ResponseWriter
	rc       *http.ResponseController
	stall    time.Duration
	deadline time.Time
}

// newStallWriter returns a buffered writer to rw under lim's StallTimeout
// and RecordsTimeout, counted from now.
func newStallWriter(rw http.ResponseWriter, lim ServerLimits) *bufio.Writer {
	sw := &stallWriter{rw: rw, rc: http.NewResponseController(rw), stall: lim.StallTimeout,
		deadline: time.Now().Add(lim.RecordsTimeout)}
	return bufio.NewWriterSize(sw, recordsChunk)
}

// Write sets the connection's write deadline, then writes p.
func (s *stallWriter) Write(p []byte) (int, error) {
	d := time.Now().Add(s.stall)
	if d.After(s.deadline) {
		d = s.deadline
	}
	// A writer without deadlines (a test recorder) keeps the server's.
	_ = s.rc.SetWriteDeadline(d)
	return s.rw.Write(p)
}
