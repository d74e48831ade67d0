from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from pitchpass.web import pages
from pitchpass.web.api import api

page_patterns = (
    [
        path("", pages.matches, name="matches"),
        path("matches/<str:match_key>/", pages.board, name="board"),
    ],
    "pitchpass",
)

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/", api.urls),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include(page_patterns)),
]
