package templates

import (
	"context"

	"hindsight/models"
)

// PageContext is what every page reads from the request: the signed-in user and the CSRF token
// its forms must carry.
type PageContext struct {
	User *models.User
	CSRF string
}

type pageContextKey struct{}

// WithPageContext stores the page context in the request's context.
func WithPageContext(ctx context.Context, pc PageContext) context.Context {
	return context.WithValue(ctx, pageContextKey{}, pc)
}

// PageContextOf reads the page context of a request.
func PageContextOf(ctx context.Context) PageContext { return pageContext(ctx) }

func pageContext(ctx context.Context) PageContext {
	pc, _ := ctx.Value(pageContextKey{}).(PageContext)
	return pc
}

func currentUser(ctx context.Context) *models.User { return pageContext(ctx).User }

func canEdit(ctx context.Context) bool { return currentUser(ctx).Can(models.RoleResponder) }

func isAdmin(ctx context.Context) bool { return currentUser(ctx).Can(models.RoleAdmin) }
