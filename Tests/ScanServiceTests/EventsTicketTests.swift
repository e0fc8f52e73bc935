import BookscanTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ScanProtocol
import Testing

@testable import ScanService

/// The web page's events URLs carry a short-lived ticket (`POST /v1/tickets`), never the long-lived token.
@Suite("Events tickets")
struct EventsTicketTests {
    @Test("a ticket is good for its minute under its own token only; expired, altered or foreign ones are not")
    func validity() {
        let tickets = EventsTickets(token: "t0ken")
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let ticket = tickets.issue(now: now)
        #expect(ticket.expiresInSeconds == EventsTickets.lifetimeSeconds)
        #expect(tickets.isValid(ticket.ticket, now: now) && tickets.isValid(ticket.ticket, now: now.addingTimeInterval(59)))
        #expect(!tickets.isValid(ticket.ticket, now: now.addingTimeInterval(61)))
        #expect(!EventsTickets(token: "other").isValid(ticket.ticket, now: now))
        let parts = ticket.ticket.split(separator: ".")
        #expect(!tickets.isValid("\(Int(parts[0])! + 600).\(parts[1])", now: now))
        #expect(!tickets.isValid(String(ticket.ticket.dropLast()) + "0", now: now) || ticket.ticket.hasSuffix("0"))
        for junk in ["", ".", "abc", "1.2.3", String(repeating: "9", count: 40) + ".00"] { #expect(!tickets.isValid(junk, now: now)) }
        // A second instance with the same token (a PostgreSQL store's other instance) accepts it.
        #expect(EventsTickets(token: "t0ken").isValid(ticket.ticket, now: now))
    }

    @Test("POST /v1/tickets wants the token; its ticket opens the events routes as ?ticket=, a bad one is 401")
    func route() async throws {
        let application = ScanServer.inProcess(configuration: ServiceConfiguration(token: "in-process-token"), logger: .quiet("test.tickets"))
        try await application.test(.router) { client in
            #expect(try await client.execute(uri: Routes.tickets, method: .post) { $0.status } == .unauthorized)
            let ticket = try await client.execute(uri: Routes.tickets, method: .post, headers: [.authorization: "Bearer in-process-token"]) { response in
                #expect(response.status == .ok && response.headers[.cacheControl] == "no-store")
                return try WireCoding.decoder().decode(EventsTicket.self, from: Data(response.body.readableBytesView))
            }
            let unknown = Routes.events(UUID(), after: 0)
            let stream: HTTPFields = [.accept: EventStreamWire.mediaType]
            let encoded = ticket.ticket.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            // Past the token check: the job is unknown (404), not the caller (401).
            #expect(try await client.execute(uri: unknown + "&\(ProtocolNames.ticketQuery)=\(encoded)", method: .get, headers: stream) { $0.status } == .notFound)
            #expect(try await client.execute(uri: unknown + "&\(ProtocolNames.ticketQuery)=1.00", method: .get, headers: stream) { $0.status } == .unauthorized)
            // A ticket is for the events routes only.
            #expect(try await client.execute(uri: Routes.limits + "?\(ProtocolNames.ticketQuery)=\(encoded)", method: .get) { $0.status } == .unauthorized)
        }
    }
}
