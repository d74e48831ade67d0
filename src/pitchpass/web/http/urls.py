from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from pitchpass.web.http import door_pages, export_pages, page_actions, pages, season_pages
from pitchpass.web.http.api import api
from pitchpass.web.http.operations import Health, metrics

match = "matches/<str:match_key>/"
one = f"{match}requests/<str:request_id>/"
page_patterns = (
    [
        path("", pages.matches, name="matches"),
        path("together/", page_actions.together, name="together"),
        path("notices/", pages.notice_list, name="notices"),
        path("notices/choose/", page_actions.choose_notices, name="choose-notices"),
        path("notices/seen/", page_actions.notices_seen, name="notices-seen"),
        path("calendar/", export_pages.calendar_page, name="calendar"),
        path("feeds/<str:secret>.ics", export_pages.feed, name="feed"),
        path("competitions/<str:competition_key>/season/", season_pages.season_page, name="season"),
        path(
            "competitions/<str:competition_key>/hindsight/",
            season_pages.ask_hindsight,
            name="ask-hindsight",
        ),
        path(
            "competitions/<str:competition_key>/season.svg",
            season_pages.season_plot,
            name="season-plot",
        ),
        path(match, pages.match_board, name="board"),
        path(f"{match}room/", pages.room, name="room"),
        path(f"{match}live/", pages.live_header, name="live"),
        path(f"{match}what-if/", pages.what_if, name="what-if"),
        path(f"{match}passes/", door_pages.passes_page, name="passes"),
        path(f"{match}passes.pdf", door_pages.passes_pdf, name="passes-pdf"),
        path(f"{match}access.pdf", export_pages.access_pdf, name="access-pdf"),
        path(f"{match}decisions.csv", export_pages.decisions_csv, name="decisions-csv"),
        path(f"{match}door/", door_pages.door_page, name="door"),
        path(f"{match}door/passes.json", door_pages.door_list, name="door-list"),
        path(f"{match}door/check-ins", door_pages.door_check_in, name="door-check-in"),
        path(f"{match}decide/", page_actions.decide, name="decide"),
        path(f"{match}publish/", page_actions.publish, name="publish"),
        path(f"{match}incidents/", page_actions.log_incident, name="incident"),
        path(f"{match}requests/new/", page_actions.new_request, name="new-request"),
        path(f"{one}override/", page_actions.override, name="override"),
        path(f"{one}revoke/", page_actions.revoke, name="revoke"),
        path(f"{one}consent/", page_actions.consent, name="consent"),
        path(f"{one}withdraw/", page_actions.withdraw, name="withdraw"),
        path(f"{one}change/", page_actions.change_request, name="change-request"),
        path(f"{one}offer/", page_actions.answer_offer, name="answer-offer"),
    ],
    "pitchpass",
)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    # Django's usual address for it, where people (and their password managers) look.
    path("accounts/login/", RedirectView.as_view(pattern_name="login", query_string=True)),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("health/", Health.as_view(), name="health"),
    path("metrics", metrics, name="metrics"),
    path("", include(page_patterns)),
]

# Faults outside any view (a middleware reading the session from a database that went
# away): middleware.server_error says what happened, in the page or the API's shape.
handler500 = "pitchpass.web.http.middleware.server_error"
handler404 = "pitchpass.web.http.middleware.not_found"
