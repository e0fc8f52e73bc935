import Hummingbird
import HTTPTypes
import ScanProtocol

/// The router's groups by `Routes.Access`: an endpoint is registered in the group of its access, and
/// the bearer token middleware belongs to the guarded groups. Authentication thus follows what the
/// router matched (however the path was spelled), never a look at the raw path, and a route cannot be
/// registered without deciding who may call it.
struct AccessGroups {
    private let open: RouterGroup<ScanRequestContext>
    private let bearer: RouterGroup<ScanRequestContext>
    private let bearerOrQueryToken: RouterGroup<ScanRequestContext>

    /// `routeMiddleware` runs in every group after its token check, once the router matched the route
    /// (the product has none; test seams add theirs at start-up, `FaultSeams.routeMiddleware`).
    init(
        router: Router<ScanRequestContext>, access: ServiceAccess,
        routeMiddleware: [any MiddlewareProtocol<Request, Response, ScanRequestContext>] = []
    ) {
        self.open = router.group()
        self.bearer = router.group().add(middleware: BearerAuthMiddleware(access: access, required: .bearer))
        self.bearerOrQueryToken = router.group().add(middleware: BearerAuthMiddleware(access: access, required: .bearerOrQueryToken))
        for middleware in routeMiddleware {
            for group in [open, bearer, bearerOrQueryToken] { group.add(middleware: middleware) }
        }
    }

    /// Registers `handler` for `method` on `endpoint`'s pattern, in the group of its access.
    func on(
        _ endpoint: Routes.Endpoint, _ method: HTTPRequest.Method,
        use handler: @Sendable @escaping (Request, ScanRequestContext) async throws -> some ResponseGenerator
    ) {
        let group =
            switch endpoint.access {
            case .open: open
            case .bearer: bearer
            case .bearerOrQueryToken: bearerOrQueryToken
            }
        group.on(RouterPath(endpoint.pattern), method: method, use: handler)
    }
}
