#import <Foundation/Foundation.h>
#import "LegacyLoader.h"

@implementation LegacyLoader {
    NSBundleResourceRequest *_request;
}

- (void)loadTutorial {
    _request = [[NSBundleResourceRequest alloc] initWithTags:[NSSet setWithObjects:@"Tutorial", @"Level3", nil]];
    _request.loadingPriority = NSBundleResourceRequestLoadingPriorityUrgent;
    [_request beginAccessingResourcesWithCompletionHandler:^(NSError *error) {
        if (error) { NSLog(@"could not load: %@", error); }
    }];
}

- (void)loadLevel3 {
    NSBundleResourceRequest *request = [[NSBundleResourceRequest alloc] initWithTags:[NSSet setWithArray:@[@"Level3"]] bundle:[NSBundle mainBundle]];
    [request conditionallyBeginAccessingResourcesWithCompletionHandler:^(BOOL available) {
        NSLog(@"level 3 available: %d", available);
    }];
}

- (void)tidyUp {
    [[NSBundle mainBundle] setPreservationPriority:0.5 forTags:[NSSet setWithObject:@"Tutorial"]];
    double priority = [[NSBundle mainBundle] preservationPriorityForTag:@"Tutorial"];
    [[NSNotificationCenter defaultCenter] addObserver:self selector:@selector(lowDisk:) name:NSBundleResourceRequestLowDiskSpaceNotification object:nil];
    /* [_request endAccessingResources]; was here before the refactor */
    NSLog(@"calling beginAccessingResources later, priority %f", priority);
    [_request endAccessingResources];
}

@end
