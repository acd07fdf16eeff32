package models_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"hindsight/models"
	"hindsight/models/native"
	"hindsight/models/storetest"
)

// tinyPNG is a real 3 × 2 PNG.
func tinyPNG(t testing.TB) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{200, 30, 30, 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// webpLossless is the header of a lossless WebP of the given size, as a file starts.
func webpLossless(width, height int) []byte {
	body := make([]byte, 10)
	body[0] = 0x2f
	binary.LittleEndian.PutUint32(body[1:5], uint32(width-1)|uint32(height-1)<<14)
	out := []byte("RIFF")
	out = binary.LittleEndian.AppendUint32(out, uint32(4+8+len(body)))
	out = append(out, "WEBPVP8L"...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(body)))
	return append(out, body...)
}

// TestImageTypeReadsTheBytes: an image's type comes from its bytes; SVG, HTML named .png, a
// truncated file, an oversized one and one claiming a huge canvas are refused.
func TestImageTypeReadsTheBytes(t *testing.T) {
	rgba := image.NewRGBA(image.Rect(0, 0, 4, 4))
	var jpg, gf bytes.Buffer
	if err := jpeg.Encode(&jpg, rgba, nil); err != nil {
		t.Fatal(err)
	}
	if err := gif.Encode(&gf, rgba, nil); err != nil {
		t.Fatal(err)
	}
	pngData := tinyPNG(t)
	for _, tc := range []struct {
		name string
		data []byte
		want string
		w, h int
	}{
		{"png", pngData, "image/png", 3, 2},
		{"jpeg", jpg.Bytes(), "image/jpeg", 4, 4},
		{"gif", gf.Bytes(), "image/gif", 4, 4},
		{"webp", webpLossless(640, 480), "image/webp", 640, 480},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), "", 0, 0},
		{"html", []byte("<!doctype html><script>alert(1)</script>"), "", 0, 0},
		{"truncated png", pngData[:20], "", 0, 0},
		{"empty", nil, "", 0, 0},
		{"too large", append(append([]byte{}, pngData...), make([]byte, models.MaxImageBytes)...), "", 0, 0},
		{"huge canvas", webpLossless(16384, 16384), "image/webp", 16384, 16384},
		{"riff but not webp", append([]byte("RIFF\x20\x00\x00\x00WAVEfmt "), make([]byte, 30)...), "", 0, 0},
	} {
		got, w, h, ok := models.ImageType(tc.data)
		if got != tc.want || ok != (tc.want != "") || w != tc.w || h != tc.h {
			t.Errorf("%s: ImageType = %q %d×%d %v, want %q %d×%d", tc.name, got, w, h, ok, tc.want, tc.w, tc.h)
		}
	}
}

// TestImagesArePrivateUntilPublished: an image is stored with its incident through the write
// path (the page's mark moves, history records it), read back for someone signed in, and served
// for the status page only once a public update or the published postmortem of its own public
// incident refers to it; a native export carries it and a restore brings it back.
func TestImagesArePrivateUntilPublished(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *models.Store) {
		ctx := models.WithActor(context.Background(), models.Actor{Label: "tester"})
		in := seed000(t)
		in.Public = true
		inc, err := s.CreateIncident(ctx, in, models.Children{})
		if err != nil {
			t.Fatal(err)
		}
		mark, err := s.IncidentPageMark(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.AddImage(ctx, inc.ID, []byte("<svg/>")); !models.IsImageError(err) {
			t.Fatalf("an SVG: %v, want the image field's message", err)
		}
		if _, err := s.AddImage(ctx, 999999, tinyPNG(t)); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("an image for no incident: %v", err)
		}
		img, err := s.AddImage(ctx, inc.ID, tinyPNG(t))
		if err != nil {
			t.Fatal(err)
		}
		if img.Path() != "/images/"+itoa(img.ID) || img.ContentType != "image/png" || img.Width != 3 || img.Height != 2 {
			t.Errorf("stored image = %+v", img)
		}
		if after, _ := s.IncidentPageMark(ctx, inc.ID); after == mark {
			t.Error("adding an image left the incident's page mark")
		}
		again, err := s.AddImage(ctx, inc.ID, tinyPNG(t))
		if err != nil || again.ID != img.ID {
			t.Errorf("the same image again: %+v, %v; want image %d", again, err, img.ID)
		}
		history, err := s.History(ctx, inc.ID)
		if err != nil {
			t.Fatal(err)
		}
		images := 0
		for _, e := range history {
			if e.Entity == models.EntityImage {
				images++
			}
		}
		if images != 1 {
			t.Errorf("history records %d image uploads, want 1", images)
		}
		got, err := s.Image(ctx, img.ID)
		if err != nil || !bytes.Equal(got.Data, tinyPNG(t)) {
			t.Fatalf("read back: %v", err)
		}
		public := func() error { _, err := s.PublicImage(ctx, img.ID); return err }
		if err := public(); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("an image no text refers to is public: %v", err)
		}
		ref := "Graph: ![p99](" + img.Path() + ")"
		// Internal text referring to it keeps it private.
		if _, err := s.CreateEvent(ctx, inc.ID, models.EventInput{At: *in.Milestones.StartedAt, Kind: "note", Body: ref}); err != nil {
			t.Fatal(err)
		}
		if err := public(); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("an image in an internal note is public: %v", err)
		}
		// A draft section referring to it keeps it private; publishing makes it public.
		if err := retag(ctx, s, inc.ID, func(in *models.IncidentInput) { in.CustomerImpact = ref; in.PostmortemState = "draft" }); err != nil {
			t.Fatal(err)
		}
		if err := public(); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("an image in an unpublished section is public: %v", err)
		}
		current, _ := s.GetIncident(ctx, inc.ID)
		if _, err := s.SetPostmortemState(ctx, inc.ID, current.Version, models.PostmortemPublished); err != nil {
			t.Fatal(err)
		}
		if err := public(); err != nil {
			t.Fatalf("an image in the published customer impact: %v", err)
		}
		// Taken back to draft, it is private again.
		current, _ = s.GetIncident(ctx, inc.ID)
		if _, err := s.SetPostmortemState(ctx, inc.ID, current.Version, "draft"); err != nil {
			t.Fatal(err)
		}
		if err := public(); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("an image of an unpublished postmortem is public: %v", err)
		}
		// A public status update referring to it makes it public while the incident is.
		if _, err := s.CreateEvent(ctx, inc.ID, models.EventInput{At: *in.Milestones.StartedAt, Kind: "status_update", Status: "identified", Body: ref, Public: true}); err != nil {
			t.Fatal(err)
		}
		if err := public(); err != nil {
			t.Fatalf("an image in a public update: %v", err)
		}
		// Another incident's public text does not make it public.
		other, err := s.AddImage(ctx, inc.ID, webpLossless(2, 2))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.PublicImage(ctx, other.ID); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("an image nothing public refers to: %v", err)
		}

		var exported bytes.Buffer
		if err := native.Export(ctx, s, &exported); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(exported.String(), `"incident_images"`) || !strings.Contains(exported.String(), got.SHA256) {
			t.Fatalf("the export lacks the images: %.600s", exported.String())
		}
		fresh := storetest.SQLite(t)
		if _, err := native.Import(ctx, fresh, bytes.NewReader(exported.Bytes()), "export.json"); err != nil {
			t.Fatal(err)
		}
		restored, err := fresh.Image(ctx, img.ID)
		if err != nil || !bytes.Equal(restored.Data, tinyPNG(t)) || restored.IncidentID != inc.ID {
			t.Fatalf("restored image: %+v, %v", restored, err)
		}
		var again2 bytes.Buffer
		if err := native.Export(ctx, fresh, &again2); err != nil {
			t.Fatal(err)
		}
		if again2.String() != exported.String() {
			t.Error("the restored database's export differs from the export it came from")
		}
		if _, err := fresh.AddImage(ctx, inc.ID, webpLossless(3, 3)); err != nil {
			t.Errorf("a new image after a restore: %v", err)
		}
	})
}
