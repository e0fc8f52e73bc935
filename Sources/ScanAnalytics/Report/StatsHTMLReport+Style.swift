extension StatsHTMLReport {
    /// The page's only style sheet: system fonts, nothing loaded.
    static let style = """
        :root { color-scheme: light; --met: #2e7d32; --not-met: #c62828; --no-data: #9e9e9e; --ink: #1f2328; --muted: #59636e; }
        body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--ink);
          background: #fff; margin: 0 auto; max-width: 1100px; padding: 24px 32px 48px; }
        h1 { font-size: 26px; margin: 0 0 4px; }
        h2 { font-size: 19px; margin: 32px 0 8px; border-bottom: 1px solid #d8dee4; padding-bottom: 4px; }
        .meta, footer, .note { color: var(--muted); font-size: 13px; }
        footer { margin-top: 40px; }
        code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; }
        table { border-collapse: collapse; margin: 12px 0; font-size: 14px; }
        th, td { border-bottom: 1px solid #e5e8eb; padding: 4px 12px 4px 0; text-align: left; vertical-align: top; }
        th { color: var(--muted); font-weight: 600; }
        td.num { font-variant-numeric: tabular-nums; }
        td.met { color: var(--met); } td.not-met { color: var(--not-met); font-weight: 600; } td.no-data { color: var(--no-data); }
        .empty { color: var(--muted); font-style: italic; }
        details { margin: 8px 0; } summary { cursor: pointer; }
        svg.chart { display: block; max-width: 100%; height: auto; margin: 8px 0; }
        svg text { font-family: system-ui, "DejaVu Sans", sans-serif; font-size: 12px; fill: var(--ink); }
        svg text.mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; }
        svg .tick { fill: var(--muted); font-size: 11px; }
        svg .track { fill: #f0f2f4; }
        svg .grid { stroke: #d8dee4; stroke-width: 1; }
        svg .target { stroke: var(--ink); stroke-width: 2; stroke-dasharray: 4 3; }
        .met { fill: var(--met); } .not-met { fill: var(--not-met); } .no-data { fill: #cfd4d9; }
        .p50 { fill: #1565c0; } .p95 { fill: #90caf9; } .reason { fill: #ef6c00; } .sse-only { fill: #5c6bc0; }
        svg .cell.empty { fill: #fafbfc; stroke: #eef0f2; }
        svg .cell-text { fill: #fff; font-size: 11px; font-weight: 600; }
        svg .badge { fill: #ffd54f; stroke: #5d4037; stroke-width: 1; }
        svg .badge-text { fill: #fff; font-size: 10px; font-weight: 700; }
        .swatch { display: inline-block; width: 11px; height: 11px; vertical-align: -1px; }
        .swatch.sse-only { background: #5c6bc0; } .swatch.no-data { background: #cfd4d9; }
        """
}
