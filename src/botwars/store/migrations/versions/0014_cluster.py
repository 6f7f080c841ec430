"""Several workers over one database (issue 27): matches.version (bumped by every committed
change of a match: a worker's cached match is up to date when its version is the row's) and
the leases table (a match's owner, which plays its built-in bots, and the cluster's leader,
which runs the singletons; each with a fencing token).

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28

"""
from alembic import op
import sqlalchemy as sa

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ALTER TABLE ... ADD COLUMN (never a batch copy of ``matches``: see 0008's downgrade)
    op.add_column("matches", sa.Column("version", sa.BigInteger(), nullable=False, server_default="0"))
    op.create_table(
        "leases",
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("holder", sa.String(64), nullable=False),
        sa.Column("token", sa.BigInteger(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
    )
    op.create_index("ix_leases_holder", "leases", ["holder"])


def downgrade() -> None:
    op.drop_index("ix_leases_holder", table_name="leases")
    op.drop_table("leases")
    # plain ALTER TABLE ... DROP COLUMN: a batch "move and copy" of ``matches`` would, with
    # SQLite's foreign keys on, empty ``seats`` through their ON DELETE CASCADE
    op.drop_column("matches", "version")
