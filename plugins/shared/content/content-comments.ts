// Readers' comments: another page's furniture (an article's comment section), a thread's content, and the content of a
// page that has little else (a link aggregator's discussion of a link: a title, a domain and the comments).
import { words, type El } from './content-text.ts';
import { postsOf } from './content-posts.ts';

/**
 * Whether a page of `total` words is a discussion: its readers' comments (`comments`, the outermost parts a class or id
 * word names so) with fewer than 100 words of its own beside them. A post, however short, says more than its title.
 */
export function discussion(comments: El[], total: number): boolean {
  return comments.length > 0 && total - comments.reduce((n, el) => n + words(el.textContent), 0) < 100;
}

/**
 * Whether a thread's parts named `comments` are its replies: every post of it but one (its opening post) is one of
 * them or is inside one (Vanilla names each reply `Comment`), or no post is found at all (Lemmy's replies, with no
 * author's mark this reading knows). A thread with more posts of its own (a question's answers) holds readers'
 * remarks on each of them, written under the post (Stack Exchange's comments): not its content.
 */
export function replies(root: El, comments: El[]): boolean {
  const posts = postsOf(root);
  const theirs = (post: Element) =>
    comments.some(
      (c) => c.contains(post) || (post.contains(c) && words(c.textContent) >= words(post.textContent) * 0.8),
    );
  return posts.filter((post) => !theirs(post)).length <= 1;
}
