"""league: uploaded bots and league matches (botwars.server.league)

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""
from alembic import op
import sqlalchemy as sa

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "league_bots",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("updated_at", sa.Float, nullable=False),
    )
    op.create_index("ix_league_bots_game", "league_bots", ["game"])
    op.create_table(
        "league_matches",
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("agents", sa.Text, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("outcome", sa.Text, nullable=True),
        sa.Column("turns", sa.Integer, nullable=False),
        sa.Column("errors", sa.Text, nullable=False),
        sa.Column("error_detail", sa.Text, nullable=False),
        sa.Column("record", sa.Text, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=True),
    )
    op.create_index("ix_league_matches_game", "league_matches", ["game"])
    op.create_index("ix_league_matches_status", "league_matches", ["status"])


def downgrade() -> None:
    op.drop_index("ix_league_matches_status", "league_matches")
    op.drop_index("ix_league_matches_game", "league_matches")
    op.drop_table("league_matches")
    op.drop_index("ix_league_bots_game", "league_bots")
    op.drop_table("league_bots")
