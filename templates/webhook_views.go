package templates

import "hindsight/models"

func webhookFormatLabel(format string) string {
	if format == models.WebhookSlack {
		return "Slack-compatible"
	}
	return "Standard Webhooks"
}

func deliveryStateLabel(d models.WebhookDelivery) string {
	switch d.State {
	case models.DeliveryDelivered:
		return "Delivered"
	case models.DeliveryFailed:
		return "Gave up after 24 hours"
	default:
		if d.Attempts == 0 {
			return "Queued"
		}
		return "Retrying at " + WhenUTC(d.NextAttemptAt)
	}
}
