"""The terminal program of ``nines play``, built on Textual.

The match runs in a worker thread (:func:`nines_sim.play.driver.run_match`);
whenever the engine asks the person's seat, the thread hands the
:class:`~nines_sim.play.seat.Request` to the app and waits for the answer.
The screen shows what that seat may see: the own hand (sorted, suits
coloured, numbered), the top card and active suit, every seat's card count and
total, the stock, the public events of this hand and whose turn it is.

Keys: a card's number (or the arrows and Enter) plays it; ``c d h s`` declare
a suit after a 9; ``p``/``k`` play or keep a drawn card; ``n`` plays two 9s
together (V4); ``?`` shows the search's ranking of the legal moves with 95%
intervals; ``q`` saves and quits (exit code 0, a chosen quit), Ctrl-C saves and
stops (exit code 130, as every command after a Ctrl-C).  In tutor mode (``--tutor
POINTS``) a move that loses more than POINTS is warned about before it is played,
and played when chosen again.  An illegal choice is refused
with the RULES.md clause that forbids it, and a key that means nothing there says
which keys do.  Cards are written with their suit symbols everywhere on the
screen (``5♦``: the hand, the log, the ranking, the refusals; the screen's words,
:mod:`nines_sim.play.screen_text`).  The match file is
saved after every decision, so nothing played is lost however the program stops.

When a hand is over, a screen shows how it ended and waits for a key: its last
plays (the card that went out included), every seat's hand penalty, the new
totals and what the rules did (a 9 out, a block, a tie-break hand).  When the
match is over, a last screen shows the winner, the totals and every hand; ``r``
there quits and reviews the match (``nines review FILE``).
"""

from __future__ import annotations

import asyncio
import shlex
from pathlib import Path

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Size
from textual.widgets import Static

from nines_sim.game.cards import SUIT_SYMBOLS
from nines_sim.game.text_lists import counted
from nines_sim.play.driver import Outcome, public_events, run_match
from nines_sim.play.ends import HandEnd, hand_ends, rule_notes
from nines_sim.play.saved import SavedMatch, save
from nines_sim.play.screen_text import SUIT_COLOURS, card_text, event_line, move_shown, per_seat, seat_name, shown
from nines_sim.play.seat import HINT, Request, Stop, refusal
from nines_sim.strategy.base import PAIR_OF_NINES, DecisionKind

#: The smallest terminal the screen fits in (columns, rows).
MIN_SIZE = (80, 24)
_STOP = object()
_SUIT_KEYS = {"c": 0, "d": 1, "h": 2, "s": 3}


class PlayApp(App):
    """A person plays one match against strategies; the match file is saved after every decision.

    Parameters
    ----------
    saved : SavedMatch
        The match (new, or loaded to resume).
    path : pathlib.Path
        Where it is saved.
    hint_samples : int
        Samples of the hidden cards for ``?`` (as ``nines analyze --samples``) and for the tutor.
    tutor : float, optional
        Tutor mode (``--tutor``): before a move that loses more than this many points (the review's measure,
        :mod:`nines_sim.play.tutor`) is played, the screen warns and the person chooses it again to play it, or
        another move.  None: no tutor.
    """

    TITLE = "nines play"
    CSS = """
    Screen { layout: vertical; }
    #small { display: none; padding: 1 2; }
    #game { height: 1fr; }
    #seats, #board, #hand, #prompt { height: auto; padding: 0 1; }
    #log { height: 1fr; padding: 0 1; border: round $panel; }
    #hint { height: auto; padding: 0 1; }
    #message { height: auto; padding: 0 1; color: $warning; }
    """
    BINDINGS = [
        Binding("q", "quit_match", "save and quit"),
        Binding("ctrl+c", "interrupt_match", "save and stop (exit code 130)", priority=True),
        Binding("question_mark", "hint", "search's ranking"),
    ]
    #: Keys the bindings answer, whatever is on the screen (not "unknown keys").
    BOUND = ("q", "ctrl+c", "question_mark")

    def __init__(self, saved: SavedMatch, path: Path, hint_samples: int = 256, tutor: float | None = None):
        super().__init__()
        self.saved, self.path, self.hint_samples, self.tutor = saved, Path(path), hint_samples, tutor
        self.request: Request | None = None
        self.outcome: Outcome | None = None
        #: What stopped the match thread, if an error did (shown on screen; ``nines play`` then says it).
        self.failure: Exception | None = None
        self.message = ""
        self._said_before = ""  # the message that a notice of the engine compiling covers
        #: Set while the app waits for the person's decision (tests await it), cleared by each answer.
        self.waiting = asyncio.Event()
        #: Set while the end of a hand, or the match's last screen, waits for a key (tests await it).
        self.showing_end = asyncio.Event()
        #: Set when the match thread is over (finished or stopped).
        self.done = asyncio.Event()
        #: Whether the person asked, on the match's last screen, to review it (``nines play`` then does).
        self.review_asked = False
        self._answer: asyncio.Future | None = None
        self._quitting = False
        self._cursor = 0
        self._digits = ""
        self._thinking = False
        self._small = False
        self._ends: list[HandEnd] = []  # every hand over so far
        self._ends_seen = 0  # of which the person has dismissed the end screen
        # a resumed match: the hands before it were seen, but not the end of the last one if the person stopped
        # before deciding anything after it
        self._resumed_in = max((k[0] for k in saved.decisions), default=None)
        self._over = False  # the match is over: its last screen follows the hands' ends

    # ---------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield Static("", id="small")
        with Vertical(id="game"):
            yield Static("", id="seats")
            yield Static("", id="board")
            yield Static("", id="log")
            yield Static("", id="hint")
            yield Static("", id="hand")
            yield Static("", id="prompt")
            yield Static("", id="message")

    def on_mount(self) -> None:
        self._fit(self.size)
        save(self.saved, self.path)  # the file exists from the start
        self.run_worker(self._drive, thread=True, exit_on_error=False)

    def on_resize(self, event: events.Resize) -> None:
        # The event's size, not self.size: this handler runs before App._on_resize records the new size.
        self._fit(event.size)

    def _fit(self, size: Size) -> None:
        """Show the board, or the too-small warning when ``size`` (columns, rows) is under :data:`MIN_SIZE`."""
        w, h = size
        small = w < MIN_SIZE[0] or h < MIN_SIZE[1]
        self.query_one("#small", Static).update(
            f"The terminal is too small: {w}x{h}; nines play needs {MIN_SIZE[0]}x{MIN_SIZE[1]}. "
            f"Enlarge it (q saves and quits)."
        )
        self.query_one("#small").display = small
        self.query_one("#game").display = not small
        self._small = small

    # ----------------------------------------------------------- the match
    def _drive(self) -> None:
        """The worker thread: play the match, asking the person through the app."""
        from nines_sim.runs.pool import listen_for_compiles

        stop_listening = listen_for_compiles(self._compiling_from_thread)
        try:
            out = run_match(self.saved, self._ask_from_thread, lambda s: save(s, self.path), self.hint_samples,
                            tutor=self.tutor)  # fmt: skip
        except Exception as exc:  # shown on screen; the file holds every decision made
            if not self._quitting:
                self.call_from_thread(self._failed, exc)
            return
        finally:
            stop_listening()
        if not self._quitting:
            self.call_from_thread(self._finished, out)

    def _compiling_from_thread(self, form: str, started: bool) -> None:
        if not self._quitting:
            self.call_from_thread(self._compiling, form, started)

    def _compiling(self, form: str, started: bool) -> None:
        """While the engine compiles (a first game or ``?`` after installing), the screen says so; then what it said."""
        if started:
            self._said_before = self.message
            self.message = f"Compiling the engine ({form}): the first game only, then it is cached ..."
        else:
            self.message = self._said_before
        self._show()

    def _ask_from_thread(self, req: Request) -> int:
        if self._quitting:
            raise Stop
        move = self.call_from_thread(self._ask, req)
        if move is _STOP:
            raise Stop
        return move

    async def _ask(self, req: Request) -> object:
        self.request, self._thinking, self._digits = req, False, ""
        if req.warning is not None:  # the same decision back: the cursor stays on the move warned about
            self.message = self._warning_text(req)
        elif req.hint is None:  # a new decision: the cursor starts on the first card that may be played (T1)
            self._cursor = next((i for i, f in enumerate(req.cards) if f in req.legal), 0)
        elif self.message.startswith("The search"):
            self.message = ""
        self._answer = asyncio.get_running_loop().create_future()
        ends = hand_ends(req.events, self.saved.rules)
        if self._resumed_in is not None:
            self._ends_seen = len(ends) if self._resumed_in >= req.hand else max(0, len(ends) - 1)
            self._resumed_in = None
        self._heard(ends)
        return await self._answer

    def _heard(self, ends: list[HandEnd]) -> None:
        """The hands over so far: an end not yet seen is shown first, and waits for a key."""
        if len(ends) > len(self._ends):
            self.message = ""
        self._ends = ends
        self._show()
        if self._pending() or self._over:
            self.showing_end.set()
        elif self.request is not None:
            self.waiting.set()

    def _pending(self) -> HandEnd | None:
        """The first hand's end the person has not yet dismissed."""
        return self._ends[self._ends_seen] if self._ends_seen < len(self._ends) else None

    def _reply(self, move: object) -> None:
        if self._answer is not None and not self._answer.done():
            self.waiting.clear()
            self._answer.set_result(move)

    def _finished(self, out: Outcome) -> None:
        self.outcome, self.request = out, None
        self._over = out.finished
        events = public_events([e for e in out.events if e[0] != "turn"], self.saved.seat)
        self._heard(hand_ends(events, self.saved.rules))
        self.done.set()

    def _failed(self, exc: Exception) -> None:
        self.failure = exc
        self.message = f"The match stopped: {exc}"
        self._show()
        self.done.set()

    # ------------------------------------------------------------ actions
    def action_quit_match(self) -> None:
        """``q``: save (the file is up to date after every decision) and quit; the app's return code is 0."""
        self._stop(0)

    def action_interrupt_match(self) -> None:
        """Ctrl-C: save and stop as ``q`` does, but with return code 130, as every command after a Ctrl-C."""
        self._stop(130)

    def _stop(self, return_code: int) -> None:
        self._quitting = True
        self._reply(_STOP)
        self.exit(return_code=return_code)

    def action_hint(self) -> None:
        req = self.request
        if req is None or self._thinking or req.hint is not None or self._pending() is not None:
            return
        self._thinking = True
        self.message = f"The search is weighing the moves ({self.hint_samples} samples)..."
        self._show()
        self._reply(HINT)

    def on_key(self, event: events.Key) -> None:
        if self._small != (self.size.width < MIN_SIZE[0] or self.size.height < MIN_SIZE[1]):
            self._fit(self.size)  # the size now, whatever resize was last heard
        if self._small or event.key in self.BOUND:
            return  # the screen is too small to see what one decides; q, ? and Ctrl-C are the bindings'
        if self._pending() is not None:
            self._ends_seen += 1  # any key goes on from the end of a hand
            self.showing_end.clear()
            self._heard(self._ends)
            event.stop()
            return
        if self._over:
            if event.key == "r":
                self.review_asked = True
                self.exit(return_code=0)
            else:
                self.message = self._unknown(event, "r reviews this match, q quits")
                self._show()
            event.stop()
            return
        req = self.request
        if req is None or self._thinking or self._answer is None or self._answer.done():
            return  # nothing to decide now
        self._decide(req, event)
        event.stop()

    def _decide(self, req: Request, event: events.Key) -> None:
        """A key while the person decides ``req``."""
        key = event.key
        kind = req.kind
        if key in _SUIT_KEYS and kind in (DecisionKind.DECLARE, DecisionKind.DEALER_DECLARE):
            self._try(_SUIT_KEYS[key])
        elif key in ("p", "y") and kind == DecisionKind.PLAY_DRAWN:
            self._try(1)
        elif key == "k" and kind == DecisionKind.PLAY_DRAWN:
            self._try(0)
        elif key == "n":
            self._try(PAIR_OF_NINES)
        elif key in ("left", "right"):
            self._cursor = (self._cursor + (1 if key == "right" else -1)) % len(req.cards)
            self._show()
        elif key in ("enter", "space"):
            if self._digits:
                self._pick(int(self._digits))
            elif kind == DecisionKind.PLAY_DRAWN:
                self._try(1 if req.cards[self._cursor] == req.drawn else -1)
            else:
                self._try(req.cards[self._cursor] if kind == DecisionKind.PLAY else -1)
        elif key.isdigit():
            self._digits += key
            n = int(self._digits)
            if n * 10 > len(req.cards):  # no longer number is a card: pick now
                self._pick(n)
            else:
                self.message = f"card {self._digits}... (Enter, or another digit)"
                self._show()
        elif key == "backspace":
            self._digits = self._digits[:-1]
            self._show()
        else:
            self.message = self._unknown(event, self._keys(req))
            self._show()

    @staticmethod
    def _unknown(event: events.Key, keys: str) -> str:
        """What a key that means nothing here is told: which keys do."""
        what = repr(event.character) if event.is_printable and event.character else event.key
        return f"The key {what} does nothing here. Keys: {keys}."

    @staticmethod
    def _keys(req: Request) -> str:
        """The keys that answer ``req`` (a draw is never a key: it comes when no card is legal, T2, T4)."""
        if req.kind == DecisionKind.PLAY:
            pair = ", n two 9s" if req.pair_legal else ""
            return f"1-{len(req.cards)} (or arrows, Enter) play a card{pair}, ? ranking, q save and quit"
        if req.kind == DecisionKind.PLAY_DRAWN:
            return "p plays the card drawn, k keeps it, ? ranking, q save and quit"
        return "c d h s declare a suit, ? ranking, q save and quit"

    def _pick(self, n: int) -> None:
        req = self.request
        assert req is not None
        self._digits = ""
        if not 1 <= n <= len(req.cards):
            self._refuse(f"there is no card {n}: your cards are numbered 1 to {len(req.cards)}")
            return
        self._cursor = n - 1
        face = req.cards[n - 1]
        if req.kind == DecisionKind.PLAY_DRAWN:
            self._try(1 if face == req.drawn else face)
        else:
            self._try(face if req.kind == DecisionKind.PLAY else -1)

    def _try(self, move: int) -> None:
        req = self.request
        assert req is not None
        why = refusal(req, move, self.saved.rules, shown)
        if why is not None:
            self._refuse(why)
            return
        self.message = f"You: {move_shown(req.kind, move)}"
        self._reply(move)

    def _refuse(self, why: str) -> None:
        self.message = f"Refused. {why}"
        self._show()

    # ------------------------------------------------------------- screen
    def _who(self) -> list[str]:
        return [seat_name(s, self.saved.lineup, self.saved.seat) for s in range(self.saved.rules.players)]

    def _show(self) -> None:
        self.query_one("#message", Static).update(self.message)
        end = self._pending()
        if end is not None:
            self._show_end(end)
            return
        if self._over:
            self._show_match_end()
            return
        req = self.request
        if req is None:
            self.query_one("#prompt", Static).update("")
            self.query_one("#hint", Static).update("")
            return
        names = self.saved.lineup
        seats = Text()
        for s in range(req.players):
            mark = ">" if s == req.seat else " "
            who = "you" if s == req.seat else names[s]
            dealer = "  dealer" if s == req.dealer else ""
            seats.append(f"{mark} seat {s} {who:<14} {req.sizes[s]:>2} cards   total {req.totals[s]:>3}{dealer}\n")
        self.query_one("#seats", Static).update(seats)
        board = Text("Top card ")
        board.append_text(card_text(req.top))
        board.append("   active suit ")
        board.append(SUIT_SYMBOLS[req.active], style=f"bold {SUIT_COLOURS[req.active]}")
        board.append(f"   stock {req.stock} cards   hand {req.hand + 1}, turn {req.turn + 1}   your turn")
        self.query_one("#board", Static).update(board)
        start = max((i for i, ev in enumerate(req.events) if ev[0] == "deal"), default=0)
        lines = [x for ev in req.events[start:] if (x := event_line(ev, names, req.seat))]
        self.query_one("#log", Static).update("\n".join(lines[-12:]))
        self.query_one("#hand", Static).update(self._hand_text(req))
        self.query_one("#prompt", Static).update(self._prompt(req))
        self.query_one("#hint", Static).update(self._hint_text(req))

    def _totals(self, totals: tuple[int, ...], title: str, marks: list[str] | None = None) -> None:
        """The header without a decision: every seat's total (no turn, no stale counts)."""
        names = self.saved.lineup
        rows = Text()
        for s, t in enumerate(totals):
            who = "you" if s == self.saved.seat else names[s]
            rows.append(f"  seat {s} {who:<14} total {t:>3}{marks[s] if marks else ''}\n")
        self.query_one("#seats", Static).update(rows)
        self.query_one("#board", Static).update(title)
        self.query_one("#hint", Static).update("")
        self.query_one("#hand", Static).update("")

    def _show_end(self, end: HandEnd) -> None:
        """The end of a hand: its last plays, every seat's hand penalty, the new totals, what the rules did."""
        names, seat, who = self.saved.lineup, self.saved.seat, self._who()
        title = f"{'Tie-break hand' if end.tiebreak else 'Hand'} {end.number} is over"
        self._totals(end.totals, f"{title}: the totals after it")
        plays = [x for ev in end.events[1:-1] if (x := event_line(ev, names, seat))]
        lines = [f"{title}. Its last plays:", *(f"  {x}" for x in plays[-8:]), event_line(end.events[-1], names, seat)]
        lines.append(f"Totals now: {per_seat(end.totals, names, seat)}"
                     + (" (unchanged: a tie-break hand adds nothing)" if end.tiebreak else ""))  # fmt: skip
        lines += rule_notes(end, self.saved.rules, who)
        self.query_one("#log", Static).update("\n".join(x for x in lines if x))
        more = "the match's result" if end.match_end is not None or (self._over and end is self._ends[-1]) else (
            "the next hand")  # fmt: skip
        self.query_one("#prompt", Static).update(f"Any key goes on to {more}.  q save and quit")

    def _show_match_end(self) -> None:
        """The match's last screen: the winner, the totals, every hand; r reviews it."""
        out = self.outcome
        assert out is not None and out.totals is not None and out.win_share is not None
        names, seat, who = self.saved.lineup, self.saved.seat, self._who()
        winners = [who[s] for s, x in enumerate(out.win_share) if x > 0]
        regular = sum(not e.tiebreak for e in self._ends)
        tb = len(self._ends) - regular
        hands = counted(regular, "hand") + (f" and {counted(tb, 'tie-break hand')}" if tb else "")
        marks = ["  winner" if x > 0 else "" for x in out.win_share]
        self._totals(tuple(out.totals), f"The match is over after {hands}: {' and '.join(winners)} "
                     f"{'win' if winners == ['you'] or len(winners) > 1 else 'wins'}", marks)  # fmt: skip
        lines = [f"Winner: {', '.join(winners)} (the lowest total wins)",
                 f"Totals: {per_seat(out.totals, names, seat)}", "", "Every hand:"]  # fmt: skip
        for e in self._ends:
            how = (event_line(e.events[-1], names, seat) or "").removeprefix("Hand over: ")
            lines.append(f"  {'tie-break hand' if e.tiebreak else 'hand'} {e.number}: {how}")
        self.query_one("#log", Static).update("\n".join(lines[-14:]))
        where = shlex.quote(str(self.path))
        self.query_one("#prompt", Static).update(
            f"Saved in {self.path}.  r: review your decisions (nines review {where}).  q: quit"
        )

    def _hand_text(self, req: Request) -> Text:
        t = Text("Your hand: ")
        playable = set(req.legal) if req.kind in (DecisionKind.PLAY, DecisionKind.PLAY_DRAWN) else set()
        for i, f in enumerate(req.cards):
            style = "reverse" if i == self._cursor else ("" if f in playable or not playable else "dim")
            t.append(f"{i + 1}:")
            t.append_text(card_text(f, style))
            t.append("  ")
        return t

    def _prompt(self, req: Request) -> str:
        if req.kind == DecisionKind.PLAY:
            extra = ", n: two 9s" if req.pair_legal else ""
            return f"Play a card: its number (or arrows, Enter){extra}.  ? ranking  q save and quit"
        if req.kind == DecisionKind.PLAY_DRAWN:
            return f"You drew {shown(req.drawn)}: p plays it, k keeps it.  ? ranking  q save and quit"
        what = "You played a 9" if req.kind == DecisionKind.DECLARE else "The starter is a 9 and you deal"
        return f"{what}: declare a suit, c d h s.  ? ranking  q save and quit"

    def _warning_text(self, req: Request) -> str:
        """The tutor's warning: the move, the points it loses, the best move, and how to go on."""
        w = req.warning
        assert w is not None
        return (f"Tutor: {move_shown(req.kind, w.move)} loses {w.lost:.1f} points (+- {1.96 * w.se:.1f}) against "
                f"the best, {move_shown(req.kind, w.best)} (your limit {w.threshold:g}; the search, "
                f"{self.hint_samples} samples). Choose it again to play it, or choose another move.")  # fmt: skip

    def _hint_text(self, req: Request) -> str:
        if req.hint is None:
            return ""
        rows = [f"The search's ranking ({self.hint_samples} samples; your hand's points vs the others', higher "
                f"is better, 95% interval):"]  # fmt: skip
        for i, (m, mean, lo, hi) in enumerate(req.hint):
            rows.append(
                f"  {move_shown(req.kind, m):<8} {mean:+7.2f}  [{lo:+.2f}, {hi:+.2f}]{'  best' if i == 0 else ''}"
            )
        return "\n".join(rows)
