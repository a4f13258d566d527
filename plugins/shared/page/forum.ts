// The class names with which forum software marks a thread's posts (Discourse, XenForo, phpBB, vBulletin, Invision,
// Flarum, Stack Exchange, Lemmy...): what tells the content step a page is a forum's (content-kind.ts) and where the
// metadata step reads a thread's first poster (plugins/meta/rules/thread.ts).
export const FORUM_POST_CLASSES: readonly string[] = [
  'crawler-post',
  'message--post',
  'js-post',
  'bbWrapper',
  'postbody',
  'postmessage',
  'post_message',
  'cPost',
  'answercell',
  'postcell',
  'js-answer',
  'PostView',
  'Post-body',
  'messageText',
  'comment-tree',
  'topic-post',
  'forum-post',
  'thread-post',
];

/** The elements forum software names for a thread's post (Reddit's web components), the post's author an attribute of it. */
export const FORUM_POST_TAGS: readonly string[] = ['shreddit-post'];
