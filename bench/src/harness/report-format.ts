// How the report writes a figure: thousands separated, milliseconds to 3 significant places, "-" for no figure.

export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : "-";
export const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? fmt(n, 2) : n < 100 ? fmt(n, 1) : fmt(n, 0)) : "-");
