package handlers

import "strconv"

// maxOffset is the furthest into a list a page number or an offset may reach: far past any real
// list, and small enough that no offset plus limit overflows anywhere below. Beyond it a list is
// simply empty.
const maxOffset = 100_000_000

// pageParam reads a 1-based page number: anything not a positive number is the first page, and a
// page past maxOffset is an empty one just beyond it.
func pageParam(value string, perPage int) (page, offset int) {
	page, _ = strconv.Atoi(value)
	if page < 1 {
		page = 1
	}
	if last := maxOffset/perPage + 1; page > last {
		page = last
	}
	return page, (page - 1) * perPage
}

// offsetParam reads an API offset: a whole number from 0, where anything past maxOffset reads as
// maxOffset, an empty page. ok is false for anything else.
func offsetParam(value string) (offset int, ok bool) {
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return int(min(n, maxOffset)), true
}
