"""rate_hits: fixed-window counters shared by every worker (issue 27 item 4: the league's
per-address upload rate); live_connections: WebSocket connections open on any worker, each
with an ``expires_at`` its worker renews, so a dead worker's rows lapse.

Revision ID: 0012
Revises: 0010
Create Date: 2026-11-28

"""
from alembic import op
import sqlalchemy as sa

revision = "0012"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rate_hits",
        sa.Column("key", sa.String(300), primary_key=True),
        sa.Column("window_start", sa.BigInteger, primary_key=True),
        sa.Column("hits", sa.Integer, nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_table(
        "live_connections",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("worker", sa.String(64), nullable=False),
        sa.Column("address", sa.String(200), nullable=True),
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("expires_at", sa.Float, nullable=False),
    )
    op.create_index("ix_live_connections_match_id", "live_connections", ["match_id"])
    op.create_index("ix_live_connections_address", "live_connections", ["address"])


def downgrade() -> None:
    op.drop_index("ix_live_connections_address", table_name="live_connections")
    op.drop_index("ix_live_connections_match_id", table_name="live_connections")
    op.drop_table("live_connections")
    op.drop_table("rate_hits")
