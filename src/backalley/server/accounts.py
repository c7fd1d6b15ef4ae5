"""Accounts, for the players who come back: a name and a password (kept as its argon2id
hash), sessions in a cookie, and the CSRF token each session's changes carry
(docs/protocol.md, accounts).

Playing needs no account: a guest holds seat tokens. An account's seats are authorised by
its session as a token authorises a guest's. A name is public (profiles show it), so a name
that looks like another account's is refused; but sign-in is no oracle for names: a wrong
password and an unknown name get the same answer after the same work.
"""

from __future__ import annotations

import asyncio
import hmac
import time
import unicodedata
from dataclasses import dataclass
from functools import cache
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from backalley.bots import BOT_NAMES
from backalley.cards import N_
from backalley.server.credentials import digest, secret
from backalley.server.settings import TableError, check_name
from backalley.server.store import Store, StoreError, accounts, devices, sessions

COOKIE = "backalley_session"  #: the session cookie's name
#: The device cookie's name: a browser's own secret, known to the accounts it signed in to.
DEVICE_COOKIE = "backalley_device"
DEVICE_DAYS = 400  #: a device cookie lasts this long from its last sign-in (browsers' cap)
CSRF_HEADER = "x-csrf-token"  #: the header every change authorised by the cookie carries
SESSION_DAYS = 90  #: a session lasts this long from its sign-in
MIN_PASSWORD, MAX_PASSWORD = 8, 200
FORMER = "Former player"  #: the name a deleted account's games keep
WRONG = N_("this name and password do not match an account")


@dataclass(frozen=True)
class Account:
    id: str
    name: str


@dataclass(frozen=True)
class Session:
    """A signed-in browser: its account, and the token its changes must carry."""

    hash: bytes
    account: Account
    csrf: str
    created: float

    def allows(self, token: str | None) -> bool:
        """Whether ``token`` is this session's CSRF token (compared in constant time)."""
        return token is not None and hmac.compare_digest(token.encode(), self.csrf.encode())

    @property
    def expired(self) -> bool:
        return time.time() > self.created + SESSION_DAYS * 86400


@cache
def _homoglyphs() -> dict[str, str]:
    """Each character that looks like a plain letter or digit, and that letter or digit."""
    from confusable_homoglyphs.confusables import confusables_data

    plain = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    found = {}
    for char, entries in confusables_data.items():
        if len(char) != 1 or char in plain:
            continue
        for entry in entries:
            if entry["c"] in plain:
                found[char] = entry["c"]
                break
    return found


#: plain characters that are easily read as one another, folded to one
_PLAIN = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l", "5": "s", "$": "s"})


def skeleton(name: str) -> str:
    """What a name looks like: two names with the same skeleton are too alike to tell apart
    (look-alike letters of other scripts, accents, case, spacing, 0 and o, 1, l and I).

    >>> skeleton("Ana") == skeleton("АNA ") == skeleton("Ána") == skeleton("a n a")
    True
    >>> skeleton("W1ll") == skeleton("will"), skeleton("Ana") == skeleton("Ann")
    (True, False)
    """
    letters = unicodedata.normalize("NFKC", name)
    looks = _homoglyphs()
    letters = "".join(looks.get(ch, ch) for ch in letters)
    letters = "".join(
        ch for ch in unicodedata.normalize("NFD", letters) if unicodedata.category(ch) != "Mn"
    )
    letters = "".join(looks.get(ch, ch) for ch in letters.casefold())
    letters = "".join(ch for ch in letters if not ch.isspace() and ch not in "-_.·'")
    return letters.translate(_PLAIN).replace("rn", "m").replace("vv", "w")[:160]


def check_account_name(name: object) -> str:
    """An account's name: a display name (:func:`check_name`), with a letter or digit in it,
    and not a bot's.

    :raises TableError: ``bad_name``.
    """
    name = check_name(name)
    if not any(ch.isalnum() for ch in name):
        raise TableError("bad_name", N_("a name needs a letter or a digit"))
    if looks_like_a_bot(name):
        raise TableError("bad_name", N_("{name} is a bot's name here: choose another"), name=name)
    return name


#: what each digit looks like (:func:`skeleton` reads 0 as o, 1 as l and 5 as s)
_DIGITS = frozenset(skeleton(digit) for digit in "0123456789")


def looks_like_a_bot(name: str) -> bool:
    """Whether ``name`` reads as a name a bot may carry here: a bot's name (or a deleted
    account's), or one numbered as the server numbers a fifth bot of a level (``Max 2``,
    ``Max10``, ``Мax 3`` with a Cyrillic М), so that nobody poses as a bot on profiles and the
    leaderboard.

    >>> [looks_like_a_bot(n) for n in ("Max", "max 2", "Max  12", "Ada3", "Maxine", "Bo Lee")]
    [True, True, True, True, False, False]
    """
    look = skeleton(name)
    numbered = any(ch.isdigit() for ch in unicodedata.normalize("NFKC", name))
    for taken in (*(bot for names in BOT_NAMES.values() for bot in names), FORMER):
        base = skeleton(taken)
        rest = look[len(base) :] if look.startswith(base) else None
        if rest == "" or (rest and numbered and all(ch in _DIGITS for ch in rest)):
            return True
    return False


def check_password(password: object) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise TableError(
            "bad_password",
            N_("a password holds {low} to {high} characters"),
            low=MIN_PASSWORD,
            high=MAX_PASSWORD,
        )
    return password


class Accounts:
    """The accounts and their sessions, in the server's database. Password hashing (slow on
    purpose) runs off the event loop; sessions are kept in memory once read."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.hasher = PasswordHasher()  # argon2id, RFC 9106's low-memory profile
        # A hash to check a password against when the name is unknown: the same work as
        # when it is known, so that the time taken does not tell one from the other.
        self._nobody = self.hasher.hash(secret())
        self._sessions: dict[bytes, Session | None] = {}

    # ------------------------------------------------------------ signing up and in

    async def sign_up(self, name: object, password: object) -> tuple[Session, str]:
        """A new account, signed in: its session and the cookie's secret.

        :raises TableError: a bad name or password, or a name like another's (``name_taken``).
        """
        name = check_account_name(name)
        password = check_password(password)
        hashed = await asyncio.to_thread(self.hasher.hash, password)
        account = Account(secret()[:16], name)
        row = dict(
            id=account.id, name=name, skeleton=skeleton(name), password=hashed, created=time.time()
        )
        try:
            await self._run(lambda c: c.execute(insert(accounts).values(**row)))
        except StoreError as error:
            if isinstance(error.__cause__, IntegrityError):
                raise TableError(
                    "name_taken", N_("{name} is taken, or looks too like a name that is"),
                    name=name,
                ) from None  # fmt: skip
            raise
        return await self._open_session(account)

    async def sign_in(self, name: object, password: object) -> tuple[Session, str]:
        """Sign in: a new session and the cookie's secret.

        :raises TableError: ``bad_sign_in``, the same for an unknown name as for a wrong
            password, after the same work.
        """
        given = password if isinstance(password, str) else ""
        look = skeleton(name) if isinstance(name, str) else ""
        row = await self._run(
            lambda c: c.execute(
                select(accounts).where(accounts.c.skeleton == look, accounts.c.deleted.is_(None))
            ).first()
        )
        stored = row.password if row is not None else None
        matched = await self._matches(stored, given)
        if stored is None or not matched:
            raise TableError("bad_sign_in", WRONG)
        if self.hasher.check_needs_rehash(stored):
            new_hash = await asyncio.to_thread(self.hasher.hash, given)
            await self._run(
                lambda c: c.execute(
                    update(accounts).where(accounts.c.id == row.id).values(password=new_hash)
                )
            )
        return await self._open_session(Account(row.id, row.name))

    async def _matches(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` is the one ``stored`` hashes, off the event loop; with no
        hash, checked against nobody's all the same, so that it takes as long."""

        def verify() -> bool:
            try:
                return bool(self.hasher.verify(stored or self._nobody, password[:MAX_PASSWORD]))
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

        matched = await asyncio.to_thread(verify)
        return stored is not None and matched

    async def _open_session(self, account: Account) -> tuple[Session, str]:
        cookie = secret()
        session = Session(digest(cookie), account, secret(), time.time())
        row = dict(
            hash=session.hash, account_id=account.id, csrf=session.csrf, created=session.created
        )
        await self._run(lambda c: c.execute(insert(sessions).values(**row)))
        self._sessions[session.hash] = session
        return session, cookie

    async def session(self, cookie: str | None) -> Session | None:
        """The live session the cookie's secret opens, or ``None``."""
        if not cookie or len(cookie) > 64:
            return None
        key = digest(cookie)
        if key not in self._sessions:
            row = await self._run(
                lambda c: c.execute(
                    select(sessions, accounts.c.name)
                    .join(accounts, accounts.c.id == sessions.c.account_id)
                    .where(sessions.c.hash == key, accounts.c.deleted.is_(None))
                ).first()
            )
            found = None
            if row is not None:
                found = Session(key, Account(row.account_id, row.name), row.csrf, row.created)
            if len(self._sessions) > 10_000:
                self._sessions.clear()
            self._sessions[key] = found
        session = self._sessions[key]
        return None if session is None or session.expired else session

    # ------------------------------------------------------------ devices

    async def known_device(self, cookie: str | None, name: object) -> bool:
        """Whether the device whose cookie's secret is ``cookie`` has signed in to the
        account named ``name`` (or a look-alike spelling of it) before."""
        if not cookie or len(cookie) > 64 or not isinstance(name, str):
            return False
        key, look = digest(cookie), skeleton(name)
        row = await self._run(
            lambda c: c.execute(
                select(devices.c.account_id)
                .join(accounts, accounts.c.id == devices.c.account_id)
                .where(devices.c.hash == key, accounts.c.skeleton == look)
            ).first()
        )
        return row is not None

    async def remember_device(self, cookie: str | None, account: Account) -> str:
        """This device (its cookie's secret ``cookie``, or a new one) is known to ``account``
        from now on: the secret, to set as the device cookie again."""
        if not cookie or len(cookie) > 64:
            cookie = secret()
        row = dict(hash=digest(cookie), account_id=account.id, created=time.time())

        def store(c: Any) -> None:
            known = select(devices.c.hash).where(
                devices.c.hash == row["hash"], devices.c.account_id == account.id
            )
            if c.execute(known).first() is None:
                c.execute(insert(devices).values(**row))

        try:
            await self._run(store)
        except StoreError as error:  # the same device signing in twice at once: known
            if not isinstance(error.__cause__, IntegrityError):
                raise
        return cookie

    # ------------------------------------------------------------ changes

    async def sign_out(self, session: Session) -> None:
        await self._run(
            lambda c: c.execute(delete(sessions).where(sessions.c.hash == session.hash))
        )
        self._sessions[session.hash] = None

    async def sign_out_everywhere(self, account: Account, keep: Session | None = None) -> None:
        """End every session of ``account`` (but ``keep``)."""
        query = delete(sessions).where(sessions.c.account_id == account.id)
        if keep is not None:
            query = query.where(sessions.c.hash != keep.hash)
        await self._run(lambda c: c.execute(query))
        for key, session in list(self._sessions.items()):
            if session is not None and session.account.id == account.id and session is not keep:
                self._sessions[key] = None

    async def change_password(self, session: Session, old: object, new: object) -> None:
        """A new password; every other session of the account ends.

        :raises TableError: the old password wrong (``bad_sign_in``), the new one bad.
        """
        await self.check(session.account, old)
        new = check_password(new)
        hashed = await asyncio.to_thread(self.hasher.hash, new)
        await self._run(
            lambda c: c.execute(
                update(accounts).where(accounts.c.id == session.account.id).values(password=hashed)
            )
        )
        await self.sign_out_everywhere(session.account, keep=session)

    async def check(self, account: Account, password: object) -> None:
        """:raises TableError: ``bad_sign_in`` unless ``password`` is the account's."""
        row = await self._run(
            lambda c: c.execute(
                select(accounts.c.password).where(accounts.c.id == account.id)
            ).first()
        )
        given = password if isinstance(password, str) else ""
        stored = row.password if row is not None else None
        if not await self._matches(stored, given):
            raise TableError("bad_sign_in", N_("this is not the account's password"))

    async def delete(self, account: Account) -> None:
        """Delete ``account``: its name, password and sessions go; its games stay, under a
        neutral name (which the caller gives them)."""
        values = dict(
            name=FORMER, skeleton=f"deleted:{account.id}", password=None, deleted=time.time()
        )
        await self._run(
            lambda c: c.execute(
                update(accounts).where(accounts.c.id == account.id).values(**values)
            )
        )
        await self._run(
            lambda c: c.execute(delete(devices).where(devices.c.account_id == account.id))
        )
        await self.sign_out_everywhere(account)

    async def _run(self, work: Any) -> Any:
        return await self.store.transaction(work)


__all__ = [
    "COOKIE",
    "CSRF_HEADER",
    "DEVICE_COOKIE",
    "DEVICE_DAYS",
    "FORMER",
    "Account",
    "Accounts",
    "Session",
    "check_account_name",
    "check_password",
    "looks_like_a_bot",
    "skeleton",
]
