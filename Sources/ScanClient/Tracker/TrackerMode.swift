/// Which path carries progress: decided by `--strategy`.
package enum TrackerMode: String, Sendable, CaseIterable {
    /// The ladder: WebSocket first; Server-Sent Events when the WebSocket is refused, slow, silent or
    /// broken; polling when the event stream fails too (or a proxy buffers it).
    case auto
    /// WebSocket only; the run fails if the socket cannot carry the job.
    case websocket
    /// Server-Sent Events only; the run fails if the stream cannot carry the job.
    case sse
    /// HTTP polling only.
    case polling
}
