-- Brings a catalogue to 19 (from 16, or from 17/18 where those exist): a changed model's metadata
-- hash before and after, for the digest (`modelcat changes`), NULL in older events; and an index
-- on a location's history (how long a file has been failing).
ALTER TABLE model_events ADD COLUMN metadata_before TEXT;
ALTER TABLE model_events ADD COLUMN metadata_after TEXT;
CREATE INDEX model_events_location ON model_events(location, event_id);
