-- The tables of the first play servers (before the columns added by hand and the bots' queue):
-- a SQLite file made then must still upgrade with its games.
CREATE TABLE games (
	id VARCHAR(40) NOT NULL,
	game VARCHAR(20) NOT NULL,
	players JSON NOT NULL,
	seed BIGINT NOT NULL,
	options JSON NOT NULL,
	seats JSON NOT NULL,
	hotseat BOOLEAN NOT NULL,
	listed BOOLEAN NOT NULL,
	table_token VARCHAR(64),
	status VARCHAR(10) NOT NULL,
	moves INTEGER NOT NULL,
	result JSON,
	created FLOAT NOT NULL,
	updated FLOAT NOT NULL,
	PRIMARY KEY (id)
);

CREATE INDEX ix_games_status ON games (status);

CREATE INDEX ix_games_updated ON games (updated);

CREATE TABLE seats (
	game_id VARCHAR(40) NOT NULL,
	seat INTEGER NOT NULL,
	token VARCHAR(64) NOT NULL,
	claimed BOOLEAN NOT NULL,
	PRIMARY KEY (game_id, seat),
	FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE CASCADE
);

CREATE TABLE invites (
	game_id VARCHAR(40) NOT NULL,
	seat INTEGER NOT NULL,
	code VARCHAR(64) NOT NULL,
	PRIMARY KEY (game_id, seat),
	FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE CASCADE
);

CREATE TABLE actions (
	game_id VARCHAR(40) NOT NULL,
	ply INTEGER NOT NULL,
	seat INTEGER NOT NULL,
	action VARCHAR(200) NOT NULL,
	PRIMARY KEY (game_id, ply),
	FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE CASCADE
);
