"""bot_memory: built-in bots' memory after their last answer (botwars.server.manager)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bot_memory",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.String(64), primary_key=True),
        sa.Column("decision", sa.Integer, nullable=False),
        sa.Column("state", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("bot_memory")
