-- Brings a schema-12 catalogue to 13: what servers last announced of their request budgets.
CREATE TABLE rate_budgets (
    host      TEXT NOT NULL,
    budget    TEXT NOT NULL,
    remaining INTEGER NOT NULL,
    resets_at REAL NOT NULL,
    quota     INTEGER,
    window_s  REAL,
    crawl_id  INTEGER NOT NULL REFERENCES crawls(crawl_id),
    PRIMARY KEY (host, budget)
);
