-- +goose Up
-- The status page's components: what an admin chose to show, each covering some services. A
-- group is a component with children (group_id), as in Statuspage; it covers no services itself.
CREATE TABLE components (
    id                    INTEGER PRIMARY KEY,
    name                  TEXT NOT NULL,
    description           TEXT NOT NULL DEFAULT '',
    is_group              BOOLEAN NOT NULL DEFAULT FALSE,
    group_id              INTEGER REFERENCES components (id) ON DELETE SET NULL,
    position              INTEGER NOT NULL DEFAULT 0,
    only_show_if_degraded BOOLEAN NOT NULL DEFAULT FALSE,
    showcase              BOOLEAN NOT NULL DEFAULT TRUE,
    start_date            TEXT,
    created_at            DATETIME NOT NULL,
    updated_at            DATETIME NOT NULL
);
CREATE INDEX components_position_idx ON components (position, id);

CREATE TABLE component_services (
    component_id INTEGER NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    service_id   INTEGER NOT NULL REFERENCES services (id) ON DELETE CASCADE,
    PRIMARY KEY (component_id, service_id)
);
CREATE INDEX component_services_service_idx ON component_services (service_id, component_id);

-- Planned maintenance, a record of its own: its schedule, its components and its updates.
CREATE TABLE maintenances (
    id              INTEGER PRIMARY KEY,
    title           TEXT NOT NULL,
    status          TEXT NOT NULL,
    scheduled_for   DATETIME NOT NULL,
    scheduled_until DATETIME NOT NULL,
    public          BOOLEAN NOT NULL DEFAULT FALSE,
    source          TEXT NOT NULL DEFAULT '',
    external_id     TEXT NOT NULL DEFAULT '',
    created_at      DATETIME NOT NULL,
    updated_at      DATETIME NOT NULL
);
CREATE INDEX maintenances_schedule_idx ON maintenances (scheduled_for, id);
CREATE UNIQUE INDEX maintenances_source_idx ON maintenances (source, external_id) WHERE external_id <> '';

CREATE TABLE maintenance_components (
    maintenance_id INTEGER NOT NULL REFERENCES maintenances (id) ON DELETE CASCADE,
    component_id   INTEGER NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    PRIMARY KEY (maintenance_id, component_id)
);
CREATE INDEX maintenance_components_component_idx ON maintenance_components (component_id, maintenance_id);

CREATE TABLE maintenance_updates (
    id             INTEGER PRIMARY KEY,
    maintenance_id INTEGER NOT NULL REFERENCES maintenances (id) ON DELETE CASCADE,
    status         TEXT NOT NULL,
    body           TEXT NOT NULL DEFAULT '',
    at             DATETIME NOT NULL,
    created_at     DATETIME NOT NULL,
    updated_at     DATETIME NOT NULL
);
CREATE INDEX maintenance_updates_maintenance_idx ON maintenance_updates (maintenance_id, at, id);

-- Until now the status page showed every service a public incident named. Each becomes a
-- component covering that service, in name order, so nothing disappears from the page.
INSERT INTO components (name, position, created_at, updated_at)
SELECT name, ROW_NUMBER() OVER (ORDER BY name), created_at, created_at FROM services
WHERE id IN (SELECT incident_services.service_id FROM incident_services JOIN incidents ON incidents.id = incident_services.incident_id
             WHERE incidents.public AND incidents.deleted_at IS NULL);
INSERT INTO component_services (component_id, service_id)
SELECT components.id, services.id FROM components JOIN services ON services.name = components.name;

-- +goose Down
DROP TABLE maintenance_updates;
DROP TABLE maintenance_components;
DROP TABLE maintenances;
DROP TABLE component_services;
DROP TABLE components;
