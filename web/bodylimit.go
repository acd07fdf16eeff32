package web

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"hindsight/handlers"
)

// importPath is the one route that takes large bodies: the import page's uploads.
const importPath = "/admin/import"

// imagesPath takes an image for an incident's text, up to handlers.ImageBodyLimit.
const imagesPath = "/incidents/:id/images"

// bodyLimits caps request bodies at BodyLimit, except the import upload's, which may reach
// handlers.ImportBodyLimit (GitHub's whole status history is 3 MB). It chooses by the matched
// route, and runs where the global limit always ran: before anything reads the body, the CSRF
// check included.
func bodyLimits() echo.MiddlewareFunc {
	small := middleware.BodyLimit(BodyLimit)
	large := middleware.BodyLimit(fmt.Sprintf("%dK", handlers.ImportBodyLimit>>10))
	image := middleware.BodyLimit(fmt.Sprintf("%dK", handlers.ImageBodyLimit>>10))
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		limitSmall, limitLarge, limitImage := small(next), large(next), image(next)
		return func(c echo.Context) error {
			if c.Path() == imagesPath && c.Request().Method == http.MethodPost {
				err := limitImage(c)
				var he *echo.HTTPError
				if errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge {
					return echo.NewHTTPError(http.StatusRequestEntityTooLarge, "The image is larger than 2 MiB.")
				}
				return err
			}
			if c.Path() == importPath && c.Request().Method == http.MethodPost {
				err := limitLarge(c)
				var he *echo.HTTPError
				if errors.As(err, &he) && he.Code == http.StatusRequestEntityTooLarge {
					return echo.NewHTTPError(http.StatusRequestEntityTooLarge, "The files are larger than 20 MiB in all; import them in parts.")
				}
				return err
			}
			return limitSmall(c)
		}
	}
}
