package models

// SetRecurrenceBuckets cuts busy factors' time lines into n spans until the returned function
// restores the default, so that tests try both kinds of time line on a few incidents.
func SetRecurrenceBuckets(n int) (restore func()) {
	was := recurrenceBuckets
	recurrenceBuckets = n
	return func() { recurrenceBuckets = was }
}
