package window

import (
	"strconv"
	"testing"
	"time"
	"unsafe"

	"github.com/llmprober/llmprober/probe"
)

// TestEntrySize: the error code and the flags fit in the 96-byte entry
// the README states.
func TestEntrySize(t *testing.T) {
	if n := unsafe.Sizeof(entry{}); n != 96 {
		t.Errorf("entry is %d bytes, want 96", n)
	}
}

// TestSlotSize: the marks of unlike records fit in the 96-byte slot the
// README states.
func TestSlotSize(t *testing.T) {
	if n := unsafe.Sizeof(slot{}); n != 96 {
		t.Errorf("slot is %d bytes, want 96", n)
	}
}

// codeOf is request i's error code in TestRecordsKeepCodeAndFlags: 260
// distinct codes, the number and the string of each text from 0 to 129
// (400 and "400" are two codes).
func codeOf(i int) probe.ErrorCode {
	j := i % 260
	if j%2 == 0 {
		return probe.ErrorCode{Text: strconv.Itoa(j / 2), Kind: probe.CodeNumber}
	}
	return probe.ErrorCode{Text: strconv.Itoa(j / 2), Kind: probe.CodeString}
}

// TestRecordsKeepCodeAndFlags: a window's records carry each request's
// error code, with its JSON type, and usage flags; codes past the table's
// 254 are shown as not kept, and the table never holds more.
func TestRecordsKeepCodeAndFlags(t *testing.T) {
	s, clk := newTestStore(t, Settings{SampleCap: 720000}) // 1000 records per bucket: all kept
	for i := range 300 {
		rec := req{seq: uint64(i), start: 1000, first: -1, firstOut: -1, last: -1, end: 1100, outcome: probe.Errored}.record()
		rec.ErrorType, rec.ErrorCode = probe.ErrorStream, codeOf(i)
		rec.UsageInconsistent, rec.TokensClamped = i%2 == 0, i%3 == 0
		s.Finished(rec)
	}
	clk.Set(at(30000))
	recs := s.Current(time.Minute).Records()
	if len(recs) != 300 || len(s.codes) != maxCodes {
		t.Fatalf("%d records, %d codes kept; want 300, %d", len(recs), len(s.codes), maxCodes)
	}
	for _, r := range recs {
		q := r.Request
		i := int(q.Seq)
		want := codeOf(i)
		if i%260 >= maxCodes {
			want = probe.ErrorCode{Text: codeNotKeptText, Kind: probe.CodeOther}
		}
		if q.ErrorCode != want || q.UsageInconsistent != (i%2 == 0) || q.TokensClamped != (i%3 == 0) {
			t.Errorf("record %d: code %+v inconsistent %v clamped %v; want %+v, %v, %v",
				i, q.ErrorCode, q.UsageInconsistent, q.TokensClamped, want, i%2 == 0, i%3 == 0)
		}
	}
}
