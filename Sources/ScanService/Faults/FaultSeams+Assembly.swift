import Hummingbird
import ScanEngine

/// The one place the seams are read: at start-up (`ScanServer`), each becomes the piece the service
/// is assembled from (middleware, the workers' store and engine, the events' delivery and upgrades,
/// the upload check's checkpoint). With no fault set, every piece is the product's own, untouched;
/// the request path never asks which.
extension FaultSeams {
    /// Middleware every request passes before routing: the request observer, then the response delay.
    var routerMiddleware: [any MiddlewareProtocol<Request, Response, ScanRequestContext>] {
        var middleware: [any MiddlewareProtocol<Request, Response, ScanRequestContext>] = []
        if let observeRequest { middleware.append(RequestObserverMiddleware(observe: observeRequest)) }
        if let responseDelay { middleware.append(ResponseDelayMiddleware(delay: responseDelay)) }
        return middleware
    }

    /// Middleware each route runs after its token check (`AccessGroups`): refused events, failing polls.
    var routeMiddleware: [any MiddlewareProtocol<Request, Response, ScanRequestContext>] {
        var middleware: [any MiddlewareProtocol<Request, Response, ScanRequestContext>] = []
        if let refuseUpgradeStatus { middleware.append(RefusedEventsMiddleware(status: refuseUpgradeStatus)) }
        if let failEveryNthPoll, failEveryNthPoll > 0 { middleware.append(FailingPollsMiddleware(every: failEveryNthPoll)) }
        return middleware
    }

    /// The store as the workers see it.
    func workerStore(_ store: any JobStore) -> any JobStore {
        scanStepDelay.map { StepDelayingJobStore(base: store, delay: $0) } ?? store
    }

    /// What the workers scan with.
    func workerEngine(_ engine: ScanEngine) -> any WorkerEngine {
        instantScan ? InstantScanEngine() : engine
    }

    /// How the events' frames reach their writers.
    var eventDelivery: any EventDelivery {
        silentSockets || dropSocketAfterEvents != nil
            ? FaultyEventDelivery(silent: silentSockets, dropAfter: dropSocketAfterEvents) : DirectEventDelivery()
    }

    /// The events routes' upgrade decisions.
    func eventUpgrades(_ events: EventSocket) -> any EventUpgrades {
        responseDelay != nil || refuseUpgradeStatus != nil || silentSockets
            ? FaultyEventUpgrades(base: events, delay: responseDelay, refusing: refuseUpgradeStatus != nil, silent: silentSockets) : events
    }

    /// What the upload check runs once its reservation is decided (`UploadValidator.checkpoint`).
    var validationCheckpoint: @Sendable () -> Void { observeValidation ?? {} }
}
