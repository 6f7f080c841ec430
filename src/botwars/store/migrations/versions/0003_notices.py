"""notices: seats' notice registrations (e-mail, webhook) and the queue of turn notices

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notice_registrations",
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.String(64), primary_key=True),
        sa.Column("channel", sa.String(16), primary_key=True),
        sa.Column("address", sa.String(2048), nullable=False),
        sa.Column("secret", sa.String(128), nullable=True),
        sa.Column("base_url", sa.String(512), nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_table(
        "notices",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id", ondelete="CASCADE"), nullable=False),
        sa.Column("seat", sa.String(64), nullable=False),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("offset_s", sa.Float, nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", sa.Float, nullable=False),
        sa.Column("last_error", sa.Text, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("sent_at", sa.Float, nullable=True),
    )
    op.create_index("ix_notices_match_id", "notices", ["match_id"])
    op.create_index("ix_notices_key", "notices", ["key"], unique=True)
    op.create_index("ix_notices_due", "notices", ["status", "next_attempt_at"])


def downgrade() -> None:
    op.drop_index("ix_notices_due", "notices")
    op.drop_index("ix_notices_key", "notices")
    op.drop_index("ix_notices_match_id", "notices")
    op.drop_table("notices")
    op.drop_table("notice_registrations")
