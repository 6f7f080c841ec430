"""notice_addresses: e-mail addresses confirmed (or declined) by their owners (issue 25 item 6)

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""
from alembic import op
import sqlalchemy as sa

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notice_addresses",
        sa.Column("address", sa.String(254), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("match_id", sa.String(32), nullable=False, index=True),
        sa.Column("asked_at", sa.Float, nullable=False),
        sa.Column("answered_at", sa.Float, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("notice_addresses")
