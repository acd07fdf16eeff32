package handlers

import (
	"bytes"
	"compress/flate"
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"hindsight/templates"
)

// DefaultPageCacheBytes is how many bytes of rendered page bodies a server keeps by default. Bodies
// are kept compressed: an incident page's body of 25 KB keeps in 6 KB, so this holds the pages
// of about 20,000 incidents.
const DefaultPageCacheBytes = 128 << 20

// csrfPlaceholder stands for the session's CSRF token in a kept body, which serves every session:
// it is replaced by the request's own token each time the body is served.
const csrfPlaceholder = "hindsight-csrf-placeholder-7f3c9a"

// Fragments keeps rendered page bodies (what goes inside the layout), each with the mark of the
// data it was rendered from. A request whose mark, read from the database before its queries,
// is the same gets the kept body instead of querying and rendering again. Safe for concurrent use.
type Fragments struct {
	mu      sync.RWMutex
	entries map[string]fragment
	bytes   int // the kept bodies' total size
	limit   int
}

type fragment struct {
	mark    string
	expires time.Time // zero: only the mark ends it
	page    templates.Page
	body    []byte // the body, deflated, with the placeholder where the CSRF token goes
	size    int    // len(body)
}

// NewFragments returns an empty store of rendered bodies that keeps up to limit bytes of them;
// zero or less keeps none.
func NewFragments(limit int) *Fragments {
	if limit <= 0 {
		return nil
	}
	return &Fragments{entries: map[string]fragment{}, limit: limit}
}

// get returns the body kept under key if it was rendered at mark and has not expired by now.
func (f *Fragments) get(key, mark string, now time.Time) (fragment, bool) {
	if f == nil {
		return fragment{}, false
	}
	f.mu.RLock()
	e, ok := f.entries[key]
	f.mu.RUnlock()
	return e, ok && e.mark == mark && (e.expires.IsZero() || now.Before(e.expires))
}

func (f *Fragments) put(key string, e fragment) {
	if f == nil || e.size > f.limit/8 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if old, ok := f.entries[key]; ok {
		f.bytes -= old.size
	}
	if f.bytes+e.size > f.limit {
		// Map order is random: drop bodies until a quarter is free rather than keep an LRU list.
		for k, old := range f.entries {
			if f.bytes+e.size <= f.limit*3/4 {
				break
			}
			delete(f.entries, k)
			f.bytes -= old.size
		}
	}
	f.entries[key] = e
	f.bytes += e.size
}

// pageBody is a page's head and its body inside the layout, which ends at expires (zero: only
// when the data changes).
type pageBody struct {
	page    templates.Page
	body    templ.Component
	expires time.Time
}

// renderKept serves the page kept under key if it was rendered at mark and has not expired, else
// builds it, keeps it and serves it. The body is rendered with the placeholder for the CSRF
// token, and each request's own token is put in when served: nothing of the signed-in user but
// the token may show in the body, unless the key says whose it is.
func (h *Handlers) renderKept(c echo.Context, key, mark string, build func() (pageBody, error)) error {
	kept, ok := h.Fragments.get(key, mark, time.Now())
	var body []byte
	if ok {
		buf := renderBuffers.Get().(*bytes.Buffer)
		defer putRenderBuffer(buf)
		if err := inflate(buf, kept.body); err != nil {
			return fmt.Errorf("kept page %s: %w", key, err)
		}
		body = buf.Bytes()
	} else {
		b, err := build()
		if err != nil {
			return err
		}
		ctx := c.Request().Context()
		pc := templates.PageContextOf(ctx)
		pc.CSRF = csrfPlaceholder
		var buf bytes.Buffer
		if err := b.body.Render(templates.WithPageContext(ctx, pc), &buf); err != nil {
			return err
		}
		body = buf.Bytes()
		deflated, err := deflate(body)
		if err != nil {
			return fmt.Errorf("keep page %s: %w", key, err)
		}
		kept = fragment{mark: mark, expires: b.expires, page: b.page, body: deflated, size: len(deflated)}
		h.Fragments.put(key, kept)
	}
	token := []byte(html.EscapeString(templates.PageContextOf(c.Request().Context()).CSRF))
	placeholder := []byte(csrfPlaceholder)
	return render(c, http.StatusOK, templates.LayoutAround(kept.page, templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		rest := body
		for {
			n := bytes.Index(rest, placeholder)
			if n < 0 {
				_, err := w.Write(rest)
				return err
			}
			if _, err := w.Write(rest[:n]); err != nil {
				return err
			}
			if _, err := w.Write(token); err != nil {
				return err
			}
			rest = rest[n+len(placeholder):]
		}
	})))
}

// Compressing at the fastest level takes a fraction of a rendering, and inflating a kept body
// about a tenth of serving it; both reuse their state.
var (
	deflaters = sync.Pool{New: func() any {
		w, _ := flate.NewWriter(nil, flate.BestSpeed)
		return w
	}}
	inflaters = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}
)

func deflate(body []byte) ([]byte, error) {
	var out bytes.Buffer
	w := deflaters.Get().(*flate.Writer)
	defer deflaters.Put(w)
	w.Reset(&out)
	if _, err := w.Write(body); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return bytes.Clone(out.Bytes()), nil
}

func inflate(dst *bytes.Buffer, deflated []byte) error {
	r := inflaters.Get().(io.ReadCloser)
	defer inflaters.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(deflated), nil); err != nil {
		return err
	}
	_, err := dst.ReadFrom(r)
	return err
}
