"""game master: a GM token per match, pause and deadline extensions, the GM's actions (issue 24)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27
"""
from alembic import op
import sqlalchemy as sa

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as b:
        b.add_column(sa.Column("gm_token_hash", sa.String(64), nullable=True))
        b.add_column(sa.Column("paused_at", sa.Float, nullable=True))
        b.add_column(sa.Column("extensions", sa.Text, nullable=True))
    op.create_table(
        "gm_actions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("match_id", sa.String(32), sa.ForeignKey("matches.id", ondelete="CASCADE"), index=True,
                  nullable=False),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("seat", sa.String(64), nullable=True),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("gm_actions")
    # plain ALTER TABLE ... DROP COLUMN (SQLite 3.35+, PostgreSQL): a batch "move and copy" of
    # ``matches`` would drop the table its seats refer to, and with SQLite's foreign keys on the
    # ON DELETE CASCADE would empty ``seats``
    for column in ("extensions", "paused_at", "gm_token_hash"):
        op.drop_column("matches", column)
