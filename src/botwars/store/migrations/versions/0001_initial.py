"""initial schema: matches, seats, orders, decisions, server_state

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""
from alembic import op
import sqlalchemy as sa

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("ruleset", sa.String(64), nullable=False),
        sa.Column("rules_version", sa.Integer, nullable=False),
        sa.Column("config", sa.Text, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("clock_enabled", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("decisions", sa.Integer, nullable=False),
        sa.Column("turns", sa.Integer, nullable=False),
        sa.Column("opened_at", sa.Float, nullable=False),
        sa.Column("bank_left", sa.Text, nullable=False),
        sa.Column("outcome", sa.Text, nullable=True),
    )
    op.create_index("ix_matches_status", "matches", ["status"])
    op.create_table(
        "seats",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.String(64), primary_key=True),
        sa.Column("idx", sa.Integer, nullable=False),
        sa.Column("agent", sa.String(200), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
    )
    op.create_index("ix_seats_token_hash", "seats", ["token_hash"], unique=True)
    op.create_table(
        "orders",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("seat", sa.String(64), primary_key=True),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("errors", sa.Text, nullable=False),
        sa.Column("time_used", sa.Float, nullable=False),
        sa.Column("clock_status", sa.String(16), nullable=False),
        sa.Column("received_at", sa.Float, nullable=False),
        sa.Column("request_key", sa.Text, nullable=False),
    )
    op.create_table(
        "decisions",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("n", sa.Integer, primary_key=True),
        sa.Column("line", sa.Text, nullable=False),
    )
    op.create_table(
        "server_state",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("heartbeat_at", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("server_state")
    op.drop_table("decisions")
    op.drop_table("orders")
    op.drop_table("seats")
    op.drop_index("ix_matches_status", "matches")
    op.drop_table("matches")
