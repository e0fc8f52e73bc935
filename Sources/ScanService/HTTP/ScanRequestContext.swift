import Hummingbird
import NIOCore

/// The request context of the service's router: Hummingbird's core context plus the request's
/// connection, so the upload route can ask for its `100 Continue` once it will read the body.
struct ScanRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The connection the request came on.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// Sends `100 Continue` when the request asked for it (`Expect: 100-continue`) and nothing was
    /// answered yet: the route is past every check that may refuse it (the token, the declared size,
    /// the upload budget) and reads the body now. See `ExpectContinueHandler`.
    func continueBody() {
        channel.triggerUserOutboundEvent(ExpectContinueHandler.Continue(), promise: nil)
    }
}
