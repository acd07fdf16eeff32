package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Statuspage's component_update webhooks. A component's status is derived (ComponentStatuses:
// the open impact windows on its services, maintenance under way), so no write names the change:
// each component keeps the status its subscribers were last told (components.announced_status,
// migration 00038), and AnnounceComponentStatuses works the statuses out again and queues one
// component_update per component whose status moved, to each webhook subscriber of it, in the
// transaction that records the new status. A write that can move a status (an incident's row,
// its impact windows, components or maintenance: a shared change) wakes the outbox worker after
// it commits, which announces before it delivers; the worker also announces on every poll, for
// maintenance that starts or ends on its schedule with no write, and for other processes' writes.

// MessageComponentUpdate is a component's status changed; it goes to webhook subscribers only.
const MessageComponentUpdate = "component_update"

// mayMoveComponents tells whether what c touched can change a component's status: an incident's
// own row (public, status, milestones, services), what the insights read (impact windows among
// them), or a shared change (components, maintenance, settings).
func (c *changes) mayMoveComponents() bool {
	if len(c.rows) > 0 {
		return true
	}
	for id, insights := range c.incidents {
		if insights || id == sharedRow || id == everythingRow {
			return true
		}
	}
	return false
}

// ComponentsWake is signalled after a write that may have moved a component's status commits.
func (s *Store) ComponentsWake() <-chan struct{} { return s.components.channel() }

func (s *Store) wakeComponents() {
	select {
	case s.components.channel() <- struct{}{}:
	default:
	}
}

// AnnounceComponentStatuses works out each component's status at now and queues a
// component_update for each one whose status differs from the one last announced, recording the
// new one. It returns how many components moved. Two processes announcing at once announce each
// move once: the status is recorded only where it still holds the old one.
func (s *Store) AnnounceComponentStatuses(ctx context.Context, now time.Time) (int, error) {
	components, err := s.ListComponents(ctx)
	if err != nil || len(components) == 0 {
		return 0, err
	}
	open, _, err := s.PublicIncidents(ctx, PublicFilter{OpenOnly: true, Limit: 200})
	if err != nil {
		return 0, err
	}
	maintenances, err := s.ListMaintenances(ctx, MaintenanceFilter{PublicOnly: true, Limit: 200})
	if err != nil {
		return 0, err
	}
	statuses := ComponentStatuses(components, open, maintenances, now)
	var announced []struct {
		ID              int64
		AnnouncedStatus string
	}
	if err := s.read.WithContext(ctx).Raw("SELECT id, announced_status FROM components").Scan(&announced).Error; err != nil {
		return 0, fmt.Errorf("read announced component statuses: %w", err)
	}
	was := map[int64]string{}
	for _, a := range announced {
		was[a.ID] = a.AnnouncedStatus
	}
	type move struct {
		component Component
		from, to  string
	}
	var moves []move
	for _, c := range components {
		if to := statuses[c.ID]; !c.IsGroup && to != "" && to != was[c.ID] {
			moves = append(moves, move{c, was[c.ID], to})
		}
	}
	if len(moves) == 0 {
		return 0, nil
	}
	moved := 0
	err = s.inWrite(ctx, func(tx *gorm.DB, _ *changes) error {
		moved = 0
		for _, m := range moves {
			res := tx.Exec("UPDATE components SET announced_status = ? WHERE id = ? AND announced_status = ?", m.to, m.component.ID, m.from)
			if res.Error != nil {
				return fmt.Errorf("record component %d status: %w", m.component.ID, res.Error)
			}
			if res.RowsAffected == 0 {
				continue // another process announced it meanwhile, or it was deleted
			}
			moved++
			if err := s.queueComponentUpdate(tx, m.component, m.from, m.to); err != nil {
				return err
			}
		}
		return nil
	})
	return moved, err
}

// queueComponentUpdate queues a component_update to every confirmed webhook subscriber of the
// component: one who chose no component, or chose it, its group, or a service it covers.
func (s *Store) queueComponentUpdate(tx *gorm.DB, c Component, from, to string) error {
	names := append([]string{c.Name}, c.ServiceNames()...)
	if c.GroupID != nil {
		var group []string
		if err := tx.Model(&Component{}).Where("id = ?", *c.GroupID).Pluck("name", &group).Error; err != nil {
			return fmt.Errorf("read component group: %w", err)
		}
		names = append(names, group...)
	}
	var subscribers []int64
	err := tx.Raw(`SELECT s.id FROM subscribers s
		WHERE s.kind = ? AND s.confirmed_at IS NOT NULL AND (
			NOT EXISTS (SELECT 1 FROM subscriber_components sc WHERE sc.subscriber_id = s.id)
			OR EXISTS (SELECT 1 FROM subscriber_components sc WHERE sc.subscriber_id = s.id AND sc.component IN ?))
		ORDER BY s.id`, SubscriberWebhook, names).Scan(&subscribers).Error
	if err != nil {
		return fmt.Errorf("find webhook subscribers of component %d: %w", c.ID, err)
	}
	if len(subscribers) == 0 {
		return nil
	}
	now := time.Now().UTC()
	id := c.ID
	msg := subscriberMessage{Kind: MessageComponentUpdate, ComponentID: &id, OldStatus: from, NewStatus: to, CreatedAt: now}
	if err := tx.Create(&msg).Error; err != nil {
		return fmt.Errorf("queue component update: %w", err)
	}
	deliveries := make([]subscriberDelivery, len(subscribers))
	for n, sub := range subscribers {
		deliveries[n] = subscriberDelivery{MessageID: msg.ID, SubscriberID: sub, NextAttemptAt: now, CreatedAt: now}
	}
	if err := tx.Create(&deliveries).Error; err != nil {
		return fmt.Errorf("queue component update deliveries: %w", err)
	}
	s.wakeAfterCommit(tx)
	return nil
}
