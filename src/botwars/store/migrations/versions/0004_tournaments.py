"""tournaments: tournaments and their finished matches (botwars.league)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""
from alembic import op
import sqlalchemy as sa

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "tournament_matches",
        sa.Column("match_id", sa.String(32), primary_key=True),
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("game_index", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("agents", sa.Text, nullable=False),
        sa.Column("seats", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("outcome", sa.Text, nullable=True),
        sa.Column("turns", sa.Integer, nullable=False),
        sa.Column("errors", sa.Text, nullable=False),
        sa.Column("error_detail", sa.Text, nullable=False),
        sa.Column("replay", sa.String(300), nullable=True),
        sa.Column("wall_s", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=False),
    )
    op.create_index("ix_tournament_matches_tournament_id", "tournament_matches", ["tournament_id"])


def downgrade() -> None:
    op.drop_index("ix_tournament_matches_tournament_id", "tournament_matches")
    op.drop_table("tournament_matches")
    op.drop_table("tournaments")
