package window

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// pointsPerChunk is the number of consecutive points a chunk holds.
const pointsPerChunk = 64

// pointChunk holds the encoded points chunk·64 … chunk·64 + 63 (those
// written), one after the other in data; end[s] is where slot s ends and
// slot s begins where slot s − 1 ends (at 0 for slot 0).
type pointChunk struct {
	chunk int64 // -1 while empty
	data  []byte
	end   [pointsPerChunk]uint32
	next  int // the next slot to write
}

// point is one decoded history point.
type point struct {
	counts []uint32  // lay.total
	pct    []float32 // len(HistoryQuantities) × len(HistoryLevels); NaN where absent
	busy   float32   // seconds in flight
	approx bool      // some percentile came from a reservoir
}

// Flags of an encoded point's first byte.
const (
	pointApprox = 1 << iota
	pointBusy
)

// numChunks returns the chunks a ring of size points needs so that every
// point of the last size is held while the open one is written.
func numChunks(size int) int { return (size+pointsPerChunk-1)/pointsPerChunk + 1 }

// chunkOf returns the chunk of the ring holding point n.
func (h *history) chunkOf(n int64) *pointChunk {
	return &h.chunks[(n/pointsPerChunk)%int64(len(h.chunks))]
}

// store encodes p as point n, which follows the last point written.
func (h *history) store(n int64, p *point) {
	c := h.chunkOf(n)
	slot := int(n % pointsPerChunk)
	if c.chunk != n/pointsPerChunk {
		c.chunk, c.data, c.next = n/pointsPerChunk, c.data[:0], 0
		clear(c.end[:])
	}
	for ; c.next < slot; c.next++ {
		c.end[c.next] = uint32(len(c.data))
	}
	c.data = p.encode(c.data)
	c.end[slot], c.next = uint32(len(c.data)), slot+1
	if slot == pointsPerChunk-1 && cap(c.data) > len(c.data)+len(c.data)/8 {
		c.data = append(make([]byte, 0, len(c.data)), c.data...)
	}
}

// load decodes point n, which must be held, into p.
func (h *history) load(n int64, p *point) {
	c := h.chunkOf(n)
	slot := int(n % pointsPerChunk)
	from := uint32(0)
	if slot > 0 {
		from = c.end[slot-1]
	}
	p.decode(c.data[from:c.end[slot]])
}

// encode appends p to b: a flag byte, the busy time (float32) unless 0,
// a bitmap of the non-zero counters and each of them as a uvarint, then the
// percentiles as a palette of their distinct values (a count byte and
// float32s) and one palette index per percentile (0 for NaN, 1-based
// otherwise), two to a byte when the palette has at most 15 values.
func (p *point) encode(b []byte) []byte {
	flags := byte(0)
	if p.approx {
		flags |= pointApprox
	}
	if p.busy != 0 {
		flags |= pointBusy
	}
	b = append(b, flags)
	if p.busy != 0 {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(p.busy))
	}
	b = p.encodeCounts(b)
	return p.encodePercentiles(b)
}

// encodeCounts appends the counters' bitmap and the non-zero ones.
func (p *point) encodeCounts(b []byte) []byte {
	at := len(b)
	b = append(b, make([]byte, (len(p.counts)+7)/8)...)
	for k, v := range p.counts {
		if v != 0 {
			b[at+k/8] |= 1 << (k % 8)
		}
	}
	for _, v := range p.counts {
		if v != 0 {
			b = binary.AppendUvarint(b, uint64(v))
		}
	}
	return b
}

// encodePercentiles appends the palette and the indices.
func (p *point) encodePercentiles(b []byte) []byte {
	var palette [32]uint32
	idx := make([]byte, len(p.pct))
	n := 0
	for i, v := range p.pct {
		if math.IsNaN(float64(v)) {
			continue
		}
		k, u := 0, math.Float32bits(v)
		for k < n && palette[k] != u {
			k++
		}
		if k == n {
			palette[n], n = u, n+1
		}
		idx[i] = byte(k + 1)
	}
	b = append(b, byte(n))
	for _, u := range palette[:n] {
		b = binary.LittleEndian.AppendUint32(b, u)
	}
	if n > 15 {
		return append(b, idx...)
	}
	for i := 0; i < len(idx); i += 2 {
		hi := byte(0)
		if i+1 < len(idx) {
			hi = idx[i+1]
		}
		b = append(b, idx[i]|hi<<4)
	}
	return b
}

// decode sets p from its encoding b (p's slices already sized).
func (p *point) decode(b []byte) {
	flags := b[0]
	b = b[1:]
	p.approx, p.busy = flags&pointApprox != 0, 0
	if flags&pointBusy != 0 {
		p.busy, b = math.Float32frombits(binary.LittleEndian.Uint32(b)), b[4:]
	}
	b = p.decodeCounts(b)
	p.decodePercentiles(b)
}

// decodeCounts reads the bitmap and the non-zero counters and returns the
// rest of b.
func (p *point) decodeCounts(b []byte) []byte {
	bitmap, b := b[:(len(p.counts)+7)/8], b[(len(p.counts)+7)/8:]
	clear(p.counts)
	for i, m := range bitmap {
		for m != 0 {
			k := 8*i + bits.TrailingZeros8(m)
			m &= m - 1
			v, n := binary.Uvarint(b)
			p.counts[k], b = uint32(v), b[n:]
		}
	}
	return b
}

// decodePercentiles reads the palette and the indices.
func (p *point) decodePercentiles(b []byte) {
	n := int(b[0])
	palette, b := b[1:1+4*n], b[1+4*n:]
	for i := range p.pct {
		k := b[i/2] >> (4 * (i % 2)) & 0xF
		if n > 15 {
			k = b[i]
		}
		p.pct[i] = float32(math.NaN())
		if k > 0 {
			p.pct[i] = math.Float32frombits(binary.LittleEndian.Uint32(palette[4*(k-1):]))
		}
	}
}
