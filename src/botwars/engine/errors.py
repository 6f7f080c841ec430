"""All botwars error types, in one place."""

from __future__ import annotations

from botwars.engine.codes import FailureCode, RefusalCode


class BotwarsError(Exception):
    """Base class of every error botwars raises on purpose."""


class ConfigError(BotwarsError):
    """A configuration value, map/board file or scenario file is invalid.

    ``source`` names the file (or ``--set`` option) and ``line``/``column`` the place,
    when known, so the command line can print a one-line error.
    """

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None,
                 column: int | None = None):
        self.message = message
        self.source = source
        self.line = line
        self.column = column
        super().__init__(self.one_line())

    def one_line(self) -> str:
        """``source:line:column: message`` on one line (line breaks in the message, which can
        only come from quoted input, are written ``\\n``)."""
        where = ""
        if self.source:
            where = self.source
            if self.line is not None:
                where += f":{self.line}"
                if self.column is not None:
                    where += f":{self.column}"
            where += ": "
        return (where + self.message).replace("\r", "\\r").replace("\n", "\\n")


class InvalidOrders(BotwarsError):
    """Orders a seat submitted are refused whole.

    ``code`` is a short machine code (:class:`~botwars.engine.codes.RefusalCode`: ``malformed``,
    ``illegal``; a rule set may use its own); ``part`` is the offending piece (a token, a card, a
    register). The message must never reveal hidden information about other seats.
    """

    def __init__(self, message: str, *, code: str = RefusalCode.ILLEGAL, part: object = None):
        self.message = message
        self.code = code
        self.part = part
        super().__init__(message)


class RulesetError(BotwarsError):
    """An unknown rule set id, or a rule set used against its contract."""


class RecordError(BotwarsError):
    """A record (replay) file is unreadable or diverges when re-simulated."""

    def __init__(self, message: str, *, decision: int | None = None):
        self.decision = decision
        super().__init__(message)


class AgentFailure(BotwarsError):
    """A bot failed this decision: ``code`` is a :class:`~botwars.engine.codes.FailureCode`
    (``timeout``, ``crash``, ``memory`` or ``malformed``; its string is accepted too); ``detail``
    says what happened (an exception line, the garbage printed, ...). Agents raise it from
    ``start`` and ``act``; the referee then applies the seat's default orders and records the
    error. Raises :class:`ValueError` for a code that is not a failure code."""

    def __init__(self, code: FailureCode | str, detail: str = ""):
        self.code = FailureCode.parse(code)
        self.detail = detail
        super().__init__(f"{self.code}: {detail}" if detail else str(self.code))
