package models

// AccountColumns exposes the columns read with a session or a token for a test.
const AccountColumns = accountColumns
