// @ts-check
// The board from the keyboard: one tab stop for the whole board (a "roving" tabindex), the
// arrow keys move a focus ring from square to square, Enter (or Space) does what a click on
// the square does, and each square's accessible name says what lies there and what Enter does.
// The renderers draw the board anew on every change, so the square in focus is kept here by
// its name and given the focus again in the new drawing.

/**
 * A square of the board as the keyboard knows it: its grid place (column and row, in any unit
 * where neighbours differ by 1), its node, its accessible name, what Enter does and the focus
 * ring to draw around it.
 * @typedef {{
 *   cell: string, col: number, row: number, node: SVGElement, label: string,
 *   activate: () => void, ring: () => SVGElement, target?: boolean,
 * }} KeyCell
 */

/** @type {Record<string, [number, number]>} */
const STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

/**
 * The nearest square from `from` in the direction (dc, dr): the closest along it, a square off
 * the line counting twice its offset (a sparse map has gaps; a full grid has its neighbour).
 * @param {KeyCell[]} cells
 * @param {KeyCell} from
 * @param {number} dc
 * @param {number} dr
 * @returns {KeyCell | null}
 */
export function nextCell(cells, from, dc, dr) {
  let best = null;
  let bestScore = Infinity;
  for (const cell of cells) {
    const along = (cell.col - from.col) * dc + (cell.row - from.row) * dr;
    if (along <= 0) continue;
    const across = Math.abs((cell.col - from.col) * dr) + Math.abs((cell.row - from.row) * dc);
    const score = along + 2 * across;
    if (score < bestScore) { best = cell; bestScore = score; }
  }
  return best;
}

export class BoardKeys {
  constructor() {
    /** @type {string | null} the square in focus (kept across drawings) */
    this.focus = null;
    /** @type {Element | null} the board drawn last */
    this.root = null;
    /** @type {KeyCell[]} */
    this.cells = [];
    /** @type {SVGElement | null} */
    this.layer = null;
    /** the squares that were targets at the last drawing */
    this.targets = "";
  }

  /** Whether a square of the board on screen has the keyboard focus (ask before redrawing). */
  holdsFocus() {
    return Boolean(this.root && document.activeElement && this.root.contains(document.activeElement));
  }

  /**
   * Make a new drawing of the board keyboard-ready.
   * @param {Element} root the board (its keys are heard here)
   * @param {SVGElement} layer where the focus ring is drawn (above the squares)
   * @param {KeyCell[]} cells
   * @param {boolean} refocus the old drawing had the focus: the new one takes it
   */
  attach(root, layer, cells, refocus) {
    this.root = root;
    this.layer = layer;
    this.cells = cells;
    if (!cells.length) return;
    let current = cells.find((c) => c.cell === this.focus);
    if (!current) current = cells.find((c) => c.target) || cells[Math.floor(cells.length / 2)];
    // New places to go (a piece was picked): the ring moves to the nearest of them.
    const targets = cells.filter((c) => c.target);
    const named = targets.map((c) => c.cell).join(" ");
    if (named !== this.targets && targets.length && !current.target) {
      const from = current;
      const distance = (/** @type {KeyCell} */ c) => Math.abs(c.col - from.col) + Math.abs(c.row - from.row);
      current = targets.reduce((a, b) => (distance(b) < distance(a) ? b : a));
    }
    this.targets = named;
    this.focus = current.cell;
    for (const c of cells) {
      c.node.setAttribute("role", "button");
      c.node.setAttribute("aria-label", c.label);
      c.node.setAttribute("tabindex", c === current ? "0" : "-1");
      c.node.addEventListener("focus", () => this.show(c));
      c.node.addEventListener("blur", () => { if (this.layer) this.layer.replaceChildren(); });
    }
    root.addEventListener("keydown", (event) => this.key(/** @type {KeyboardEvent} */ (event)));
    if (refocus) this.take(current);
  }

  /** @param {KeyCell} cell */
  show(cell) {
    this.focus = cell.cell;
    for (const c of this.cells) c.node.setAttribute("tabindex", c === cell ? "0" : "-1");
    // The ring is the keyboard's: a square clicked or tapped takes the focus without one.
    if (cell.node.matches(":focus-visible")) this.layer?.replaceChildren(cell.ring());
  }

  /** @param {KeyCell} cell */
  take(cell) {
    cell.node.focus({ preventScroll: true });
    // The least scroll that shows it: a phone's board scrolls sideways inside its box.
    cell.node.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  /** @param {KeyboardEvent} event */
  key(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const current = this.cells.find((c) => c.cell === this.focus);
    if (!current) return;
    const step = STEPS[event.key];
    if (step) {
      event.preventDefault();
      const next = nextCell(this.cells, current, step[0], step[1]);
      if (next) this.take(next);
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      current.activate();
    }
  }
}
