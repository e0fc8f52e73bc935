/// Where an accepted event came from.
package enum EventPath: String, Codable, Sendable, CaseIterable {
    case websocket
    /// Server-Sent Events.
    case sse
    case polling
    /// The snapshot the upload itself returned.
    case upload
}
