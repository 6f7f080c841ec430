"""league_seasons: a game's league seasons (issue 28 item 6, botwars.server.league)

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-28

"""
from alembic import op
import sqlalchemy as sa

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "league_seasons",
        sa.Column("game", sa.String(64), primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True),
        sa.Column("started_at", sa.Float, nullable=False),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
    )


def downgrade() -> None:
    op.drop_table("league_seasons")
