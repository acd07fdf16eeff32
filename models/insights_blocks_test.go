package models

import (
	"slices"
	"testing"
)

// TestBlocksCoverEveryID proves each id lies in the range of its block, as SQL divides (toward
// zero), and that ranges of adjacent blocks are joined.
func TestBlocksCoverEveryID(t *testing.T) {
	for id := int64(-5000); id <= 5000; id++ {
		first, last := blockIDs(insightBlock(id))
		if id < first || id > last {
			t.Fatalf("id %d: block %d holds %d to %d", id, insightBlock(id), first, last)
		}
	}
	for block := int64(-4); block < 4; block++ {
		first, last := blockIDs(block)
		if insightBlock(first) != block || insightBlock(last) != block || insightBlock(first-1) == block || insightBlock(last+1) == block {
			t.Errorf("block %d: %d to %d", block, first, last)
		}
	}
	got := idRanges([]int64{-1, 0, 1, 5, 7, 8})
	want := [][2]int64{{-2047, 2047}, {5120, 6143}, {7168, 9215}}
	if !slices.Equal(got, want) {
		t.Errorf("ranges %v, want %v", got, want)
	}
	if cond, _ := rangeCond("id", idRanges(nil)); cond != "FALSE" {
		t.Errorf("no blocks choose %s", cond)
	}
}
