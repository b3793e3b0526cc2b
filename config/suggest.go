package config

import (
	"reflect"
	"strings"
)

// closest returns the field name nearest to key when it is a likely typo
// (at most two edits away, and less than half the key, case ignored: the
// field names are all lower case), or "".
func closest(key string, fields map[string]reflect.StructField) string {
	best, bestDist := "", 3
	lower := strings.ToLower(key)
	for name := range fields {
		d := editDistance(lower, name)
		if d < bestDist || (d == bestDist && name < best) {
			best, bestDist = name, d
		}
	}
	if best == "" || 2*bestDist >= len(key) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
