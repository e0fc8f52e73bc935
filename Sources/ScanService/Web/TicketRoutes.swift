import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ScanProtocol

/// `POST /v1/tickets` (behind the token): a short-lived events ticket (`EventsTickets`) for the page's WebSocket
/// and event-stream URLs, in place of the long-lived token.
struct TicketRoutes: Sendable {
    let tickets: EventsTickets

    func register(on routes: AccessGroups) {
        routes.on(.tickets, .post) { _, _ in
            let body = try WireCoding.encode(tickets.issue())
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
    }
}
