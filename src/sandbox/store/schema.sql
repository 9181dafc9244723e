-- The sandbox's tables. Column names match the wire fields (see wire.rs) so records map to rows
-- by name; booleans are INTEGER 0/1, JSON-shaped fields (variables, tools, ...) are JSON text,
-- timestamps are text already in their wire format, decimal-as-text fields stay TEXT so "0.70"
-- comes back as "0.70".

CREATE TABLE IF NOT EXISTS users (
    id    INTEGER PRIMARY KEY,
    token TEXT NOT NULL UNIQUE
);

-- Every token of every user; users.token is the first of them, kept for databases made before
-- users could have several. The INSERT brings such a database's tokens over (and is a no-op
-- once they are here, since users.token is always among its user's tokens).
CREATE TABLE IF NOT EXISTS user_tokens (
    token   TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users(id)
);
INSERT OR IGNORE INTO user_tokens (token, user_id) SELECT token, id FROM users;

CREATE TABLE IF NOT EXISTS campaigns (
    id                          INTEGER PRIMARY KEY,
    user_id                     INTEGER NOT NULL REFERENCES users(id),
    name                        TEXT NOT NULL,
    status                      TEXT NOT NULL,
    max_calls_in_parallel       INTEGER NOT NULL,
    mark_complete_when_no_leads INTEGER NOT NULL,
    allowed_hours_start_time    TEXT NOT NULL,
    allowed_hours_end_time      TEXT NOT NULL,
    allowed_days                TEXT NOT NULL,
    max_retries                 INTEGER NOT NULL,
    retry_interval              INTEGER NOT NULL,
    created_at                  TEXT NOT NULL,
    updated_at                  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS campaigns_by_user ON campaigns(user_id, id);

CREATE TABLE IF NOT EXISTS assistants (
    id                             INTEGER PRIMARY KEY,
    user_id                        INTEGER NOT NULL REFERENCES users(id),
    phone_number_id                INTEGER,
    engine_id                      INTEGER,
    synthesizer_id                 INTEGER,
    transcriber_id                 INTEGER,
    voice_id                       INTEGER NOT NULL,
    instance_id                    INTEGER NOT NULL,
    name                           TEXT NOT NULL,
    variables                      TEXT NOT NULL,
    post_call_evaluation           INTEGER NOT NULL,
    fillers                        INTEGER NOT NULL,
    post_call_schema               TEXT NOT NULL,
    tools                          TEXT NOT NULL,
    is_webhook_active              INTEGER NOT NULL,
    webhook_url                    TEXT,
    inbound_webhook_url            TEXT,
    language                       TEXT,
    type                           TEXT NOT NULL,
    status                         TEXT NOT NULL,
    max_duration                   INTEGER NOT NULL,
    record                         INTEGER NOT NULL,
    initial_message                TEXT NOT NULL,
    system_prompt                  TEXT NOT NULL,
    flows_platform_id              INTEGER,
    timezone                       TEXT NOT NULL,
    created_at                     TEXT NOT NULL,
    updated_at                     TEXT NOT NULL,
    deleted_at                     TEXT,
    max_silence_duration           INTEGER NOT NULL,
    reengagement_interval          INTEGER NOT NULL,
    end_call_on_voicemail          INTEGER NOT NULL,
    llm_temperature                TEXT NOT NULL,
    voice_stability                TEXT NOT NULL,
    voice_similarity               TEXT NOT NULL,
    allow_interruptions            INTEGER NOT NULL,
    enable_noise_cancellation      INTEGER NOT NULL,
    endpoint_sensitivity           REAL NOT NULL,
    speech_speed                   TEXT NOT NULL,
    endpoint_type                  TEXT NOT NULL,
    wait_for_customer              INTEGER NOT NULL,
    mode                           TEXT NOT NULL,
    language_id                    INTEGER NOT NULL,
    transcriber_provider_id        INTEGER,
    synthesizer_provider_id        INTEGER,
    llm_model_id                   INTEGER,
    multimodal_model_id            INTEGER,
    ambient_sound                  TEXT,
    ambient_sound_volume           TEXT NOT NULL,
    uuid                           TEXT NOT NULL,
    send_webhook_only_on_completed INTEGER NOT NULL,
    include_recording_in_webhook   INTEGER NOT NULL,
    interrupt_sensitivity          REAL NOT NULL,
    min_interrupt_words            INTEGER NOT NULL,
    filler_config                  TEXT NOT NULL,
    knowledgebase_id               INTEGER,
    knowledgebase_mode             TEXT NOT NULL,
    widget_settings                TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS assistants_by_user ON assistants(user_id, id);

-- Operation 6 stores where conversation-ended notifications go; it is not an assistant field.
CREATE TABLE IF NOT EXISTS conversation_webhooks (
    assistant_id INTEGER PRIMARY KEY REFERENCES assistants(id),
    url          TEXT NOT NULL,
    enabled_at   TEXT NOT NULL
);

-- Main leads and secondary contacts share the table: a secondary contact is a lead whose
-- parent_id names its main lead, so both draw ids from one sequence.
CREATE TABLE IF NOT EXISTS leads (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER NOT NULL REFERENCES users(id),
    campaign_id  INTEGER NOT NULL REFERENCES campaigns(id),
    parent_id    INTEGER REFERENCES leads(id),
    phone_number TEXT NOT NULL,
    variables    TEXT NOT NULL,
    status       TEXT NOT NULL,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
-- Listing: main leads (parent_id IS NULL) and then all secondary contacts of a user, in order.
CREATE INDEX IF NOT EXISTS leads_by_user ON leads(user_id, parent_id, id);
-- The duplicate rule looks up main leads by campaign and phone number.
CREATE INDEX IF NOT EXISTS main_leads_by_phone ON leads(campaign_id, phone_number)
    WHERE parent_id IS NULL;
