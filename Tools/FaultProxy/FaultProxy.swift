import NIOCore
import NIOPosix

/// A TCP proxy on loopback between a client and a scan service that injects the faults broken
/// networks and middleboxes cause: refused upgrades, silent sockets, drops, resets, latency, bandwidth.
/// Tests point the client at `baseURL`; the service itself runs unmodified behind it.
package final class FaultProxy: Sendable {
    package let port: Int
    package var baseURL: String { "http://127.0.0.1:\(port)" }
    private let channel: any Channel
    private let log: FaultLog

    private init(port: Int, channel: any Channel, log: FaultLog) {
        self.port = port
        self.channel = channel
        self.log = log
    }

    /// Starts a proxy to `127.0.0.1:upstreamPort` applying `plan` to every new connection.
    package static func start(upstreamPort: Int, plan: @escaping FaultPlan) async throws -> FaultProxy {
        let log = FaultLog()
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        FrontHandler(upstreamPort: upstreamPort, plan: plan, log: log))
                }
            }
        let channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        return FaultProxy(port: channel.localAddress?.port ?? 0, channel: channel, log: log)
    }

    /// Every first request the proxy saw, with the fault it applied.
    package var requests: [(ProxiedRequest, ConnectionFault)] { log.entries }

    /// Upgrades the server accepted (101) through this proxy.
    package var acceptedUpgrades: Int { log.acceptedUpgrades }

    package func stop() async {
        try? await channel.close()
    }
}
