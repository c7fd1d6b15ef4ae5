"""Add the browser client's messages (its ``t("…")`` strings) to the message template, which
Babel extracts from the Python sources: scripts/i18n.sh update runs this after it."""

import sys
from pathlib import Path

from babel.messages.pofile import read_po, write_po

from backalley.server.app import web_messages

template = Path(sys.argv[1])
with template.open("rb") as stream:
    catalog = read_po(stream)
for message in web_messages():
    if message not in catalog:
        catalog.add(message, flags=["python-brace-format"] if "{" in message else [])
with template.open("wb") as stream:
    write_po(stream, catalog, width=76, sort_output=True, omit_header=False)
