"""league_matches.owner: who queued a challenge (per-owner quota, issue 25 item 3)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27
"""
from alembic import op
import sqlalchemy as sa

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("league_matches", sa.Column("owner", sa.String(64), nullable=True))
    op.create_index("ix_league_matches_owner", "league_matches", ["owner"])


def downgrade() -> None:
    op.drop_index("ix_league_matches_owner", "league_matches")
    op.drop_column("league_matches", "owner")
