-- modelcat catalogue, schema version 13: what servers last announced of their request budgets
-- (RateLimit / RateLimit-Policy), so that a crawl started before the window resets (a stopped
-- crawl resumed, the next job of the night) waits for it instead of drawing a 429.
CREATE TABLE rate_budgets (
    host      TEXT NOT NULL,     -- scheme://host:port the budget was announced for
    budget    TEXT NOT NULL,     -- its name (the Hub: api, resolvers)
    remaining INTEGER NOT NULL,  -- requests left in the window when the crawl ended
    resets_at REAL NOT NULL,     -- when the window resets: seconds since the epoch (UTC), plus the margin for a rounded-down t
    quota     INTEGER,           -- RateLimit-Policy q, when announced
    window_s  REAL,              -- RateLimit-Policy w, seconds
    crawl_id  INTEGER NOT NULL REFERENCES crawls(crawl_id),  -- the crawl that was told
    PRIMARY KEY (host, budget)
);
