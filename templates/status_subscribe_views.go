package templates

import "hindsight/models"

// StatusSubscribeView is the public subscribe form: an email address or a webhook URL, and the
// components to follow. Sent is set once a request was taken, and then the page says the same
// thing whatever became of it, so that nobody learns whether an address was subscribed.
type StatusSubscribeView struct {
	Head       StatusHead
	Email      string
	WebhookURL string
	Components []SubscribeComponent
	Errors     models.FieldErrors
	Error      string // a problem with the whole request, such as too many of them
	Sent       bool
	Webhook    bool // the request was for a webhook
}

// SubscribeComponent is one component on the subscribe form.
type SubscribeComponent struct {
	Name    string
	Checked bool
}

// StatusSubscriptionView is a page reached from a message's link: confirm or unsubscribe, each a
// button that posts, so that a mail scanner following the link changes nothing.
type StatusSubscriptionView struct {
	Head    StatusHead
	Heading string
	Text    string
	Action  string // where the button posts; empty once done
	Button  string
	Done    bool
}

// SubscribersView is the admin page with the subscriber counts.
type SubscribersView struct {
	Page   Page
	Counts models.SubscriberCounts
	// SMTP names the mail server messages go through; empty when none is configured.
	SMTP string
	From string
}
