"""seats.name: players' display names (issue 24 item 2, botwars.server.names);
notice_registrations.seat_link: each notice links the seat's own page (issue 24 item 8)

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27

"""
from alembic import op
import sqlalchemy as sa

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("name", sa.String(200), nullable=True))
    with op.batch_alter_table("notice_registrations") as batch:
        batch.add_column(sa.Column("seat_link", sa.String(1024), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("notice_registrations") as batch:
        batch.drop_column("seat_link")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("name")
