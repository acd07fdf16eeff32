package models_test

import (
	"reflect"
	"strings"
	"testing"

	"gorm.io/gorm/schema"

	"hindsight/models"
)

// TestAccountColumnsNameEveryField fails when User gains a field that the statements reading an
// account beside its session or token leave out: the field would read as empty on every request.
func TestAccountColumnsNameEveryField(t *testing.T) {
	naming := schema.NamingStrategy{}
	typ := reflect.TypeOf(models.User{})
	for i := range typ.NumField() {
		column := naming.ColumnName("", typ.Field(i).Name)
		if !strings.Contains(models.AccountColumns, "u."+column+" AS u_"+column) {
			t.Errorf("User.%s (column %s) is not read with a session or a token", typ.Field(i).Name, column)
		}
	}
}
