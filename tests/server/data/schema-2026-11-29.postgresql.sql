-- The schema a PostgreSQL database made by cradle's server had before Alembic (main, 2026-11-29).
CREATE TABLE bot_clients (
	client VARCHAR(32) NOT NULL, 
	load FLOAT NOT NULL, 
	PRIMARY KEY (client)
);

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
	version INTEGER NOT NULL, 
	bot_turn BOOLEAN NOT NULL, 
	bot_seats INTEGER NOT NULL, 
	bot_seconds FLOAT, 
	client VARCHAR(32), 
	played BOOLEAN DEFAULT false NOT NULL, 
	PRIMARY KEY (id)
);

CREATE INDEX ix_games_bot_turn ON games (bot_turn);

CREATE INDEX ix_games_client ON games (client);

CREATE INDEX ix_games_status ON games (status);

CREATE INDEX ix_games_updated ON games (updated);

CREATE TABLE rates (
	bucket VARCHAR(16) NOT NULL, 
	client VARCHAR(32) NOT NULL, 
	tokens FLOAT NOT NULL, 
	stamp FLOAT NOT NULL, 
	PRIMARY KEY (bucket, client)
);

CREATE INDEX ix_rates_stamp ON rates (stamp);

CREATE TABLE actions (
	game_id VARCHAR(40) NOT NULL, 
	ply INTEGER NOT NULL, 
	seat INTEGER NOT NULL, 
	action VARCHAR(200) NOT NULL, 
	PRIMARY KEY (game_id, ply), 
	FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE CASCADE
);

CREATE TABLE analyses (
	game_id VARCHAR(40) NOT NULL, 
	status VARCHAR(10) NOT NULL, 
	done INTEGER NOT NULL, 
	total INTEGER NOT NULL, 
	data JSON, 
	owner VARCHAR(16), 
	updated FLOAT NOT NULL, 
	PRIMARY KEY (game_id), 
	FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE CASCADE
);

CREATE INDEX ix_analyses_status ON analyses (status);

CREATE TABLE bot_clocks (
	game_id VARCHAR(40) NOT NULL, 
	seat INTEGER NOT NULL, 
	spent FLOAT NOT NULL, 
	PRIMARY KEY (game_id, seat), 
	FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE CASCADE
);

CREATE TABLE bot_jobs (
	game_id VARCHAR(40) NOT NULL, 
	version INTEGER NOT NULL, 
	client VARCHAR(32) NOT NULL, 
	cost FLOAT NOT NULL, 
	ready FLOAT NOT NULL, 
	owner VARCHAR(64), 
	lease FLOAT NOT NULL, 
	PRIMARY KEY (game_id), 
	FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE CASCADE
);

CREATE INDEX ix_bot_jobs_ready ON bot_jobs (ready);

CREATE TABLE invites (
	game_id VARCHAR(40) NOT NULL, 
	seat INTEGER NOT NULL, 
	code VARCHAR(64) NOT NULL, 
	expires FLOAT, 
	PRIMARY KEY (game_id, seat), 
	FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE CASCADE
);

CREATE TABLE seats (
	game_id VARCHAR(40) NOT NULL, 
	seat INTEGER NOT NULL, 
	token VARCHAR(64) NOT NULL, 
	claimed BOOLEAN NOT NULL, 
	PRIMARY KEY (game_id, seat), 
	FOREIGN KEY(game_id) REFERENCES games (id) ON DELETE CASCADE
);

