package sim

import (
	"slices"
	"testing"
	"time"
)

func TestRing(t *testing.T) {
	tests := []struct {
		name  string
		added int
		want  []string // ids, oldest first
	}{
		{"empty", 0, []string{}},
		{"partly full", 2, []string{"1", "2"}},
		{"full", 3, []string{"1", "2", "3"}},
		// Capacity 3: after 7 entries the last 3 remain.
		{"wrapped", 7, []string{"5", "6", "7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRing(3)
			for i := 1; i <= tt.added; i++ {
				r.add(RequestLog{ID: string(rune('0' + i)), ChunkSent: []time.Time{{}}})
			}
			got := []string{}
			for _, l := range r.snapshot() {
				got = append(got, l.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("ids %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSnapshotIsDeep(t *testing.T) {
	r := newRing(2)
	r.add(RequestLog{ID: "a", ChunkSent: []time.Time{time.Unix(1, 0)}})
	r.snapshot()[0].ChunkSent[0] = time.Unix(2, 0)
	if got := r.snapshot()[0].ChunkSent[0]; !got.Equal(time.Unix(1, 0)) {
		t.Errorf("snapshot shares ChunkSent: %v", got)
	}
}
